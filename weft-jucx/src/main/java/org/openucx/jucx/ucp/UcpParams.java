package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxParams;

import java.util.LinkedHashMap;
import java.util.Map;

/** Parameters of a {@link UcpContext}: the features it needs and configuration overrides. */
public class UcpParams extends UcxParams {
    long features;
    long tagSenderMask;
    boolean mtWorkersShared;
    long estimatedNumEps;
    final Map<String, String> config = new LinkedHashMap<>();

    @Override
    public UcpParams clear() {
        super.clear();
        features = 0L;
        tagSenderMask = 0L;
        mtWorkersShared = false;
        estimatedNumEps = 0L;
        config.clear();
        return this;
    }

    /** The bits of a tag that name the sender (kept for compatibility: Weft reports the whole tag). */
    public UcpParams setTagSenderMask(long tagSenderMask) {
        this.tagSenderMask = tagSenderMask;
        fieldMask |= UcpConstants.UCP_PARAM_FIELD_TAG_SENDER_MASK;
        return this;
    }

    /** Workers of the context are used from several threads at once. */
    public UcpParams setMtWorkersShared(boolean mtWorkersShared) {
        this.mtWorkersShared = mtWorkersShared;
        fieldMask |= UcpConstants.UCP_PARAM_FIELD_MT_WORKERS_SHARED;
        return this;
    }

    /** How many endpoints the context expects (sizes its tables). */
    public UcpParams setEstimatedNumEps(long estimatedNumEps) {
        this.estimatedNumEps = estimatedNumEps;
        fieldMask |= UcpConstants.UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
        return this;
    }

    public UcpParams requestTagFeature() {
        return feature(UcpConstants.UCP_FEATURE_TAG);
    }

    public UcpParams requestAmFeature() {
        return feature(UcpConstants.UCP_FEATURE_AM);
    }

    public UcpParams requestRmaFeature() {
        return feature(UcpConstants.UCP_FEATURE_RMA);
    }

    public UcpParams requestAtomic32BitFeature() {
        return feature(UcpConstants.UCP_FEATURE_AMO32);
    }

    public UcpParams requestAtomic64BitFeature() {
        return feature(UcpConstants.UCP_FEATURE_AMO64);
    }

    /** Workers can sleep ({@link UcpWorker#waitForEvents()}) and give an event descriptor. */
    public UcpParams requestWakeupFeature() {
        return feature(UcpConstants.UCP_FEATURE_WAKEUP);
    }

    public UcpParams requestStreamFeature() {
        return feature(UcpConstants.UCP_FEATURE_STREAM);
    }

    /** Exported memory handles (shared with other processes): not supported, the context refuses it. */
    public UcpParams requestExportedMemFeature() {
        return feature(UcpConstants.UCP_FEATURE_EXPORTED_MEMH);
    }

    /**
     * A configuration override: a Weft variable ({@code WEFT_TLS}), or a UCX-style name without its prefix
     * ({@code TLS}, {@code RNDV_THRESH}), taken as the Weft variable of that name.
     */
    public UcpParams setConfig(String key, String value) {
        config.put(key, value);
        return this;
    }

    private UcpParams feature(final long bit) {
        features |= bit;
        fieldMask |= UcpConstants.UCP_PARAM_FIELD_FEATURES;
        return this;
    }
}
