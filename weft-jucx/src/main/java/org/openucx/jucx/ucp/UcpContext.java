package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxException;
import org.openucx.jucx.UcxNativeStruct;
import org.openucx.jucx.ucs.UcsConstants;
import weft.ucp.Context;
import weft.ucp.Feature;
import weft.ucp.MemoryMap;
import weft.ucs.WeftException;
import weft.ucs.config.Config;

import java.io.Closeable;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * The communication context: the features asked for, the transports, and the memory it registers. Made
 * on a Weft {@link Context}; its configuration is Weft's ({@code WEFT_*} variables) with the overrides of
 * {@link UcpParams#setConfig}.
 */
public class UcpContext extends UcxNativeStruct implements Closeable {
    final Context weft;
    final List<UcpWorker> workers = new ArrayList<>();
    private final List<UcpMemory> memory = new ArrayList<>();

    @SuppressWarnings("this-escape") // JUCX's classes are open (its API) and register themselves when made, as JUCX's do
    public UcpContext(UcpParams params) {
        if ((params.features & UcpConstants.UCP_FEATURE_EXPORTED_MEMH) != 0) {
            throw Jucx.unsupported("exported memory handles (UCP_FEATURE_EXPORTED_MEMH)");
        }
        final EnumSet<Feature> f = EnumSet.noneOf(Feature.class);
        add(f, params.features, UcpConstants.UCP_FEATURE_TAG, Feature.TAG);
        add(f, params.features, UcpConstants.UCP_FEATURE_RMA, Feature.RMA);
        add(f, params.features, UcpConstants.UCP_FEATURE_AMO32, Feature.AMO32);
        add(f, params.features, UcpConstants.UCP_FEATURE_AMO64, Feature.AMO64);
        add(f, params.features, UcpConstants.UCP_FEATURE_WAKEUP, Feature.WAKEUP);
        add(f, params.features, UcpConstants.UCP_FEATURE_STREAM, Feature.STREAM);
        add(f, params.features, UcpConstants.UCP_FEATURE_AM, Feature.AM);
        if (f.isEmpty()) {
            throw new UcxException("no feature requested (UcpParams.request*Feature)",
                UcsConstants.STATUS.UCS_ERR_INVALID_PARAM);
        }
        Config c = Config.global();
        for (final Map.Entry<String, String> e : params.config.entrySet()) {
            final String k = e.getKey().startsWith("WEFT_") ? e.getKey()
                : "WEFT_" + (e.getKey().startsWith("UCX_") ? e.getKey().substring(4) : e.getKey());
            c = c.with(k, e.getValue());
        }
        final Context.Builder b = Context.builder().features(f.toArray(new Feature[0])).config(c);
        if (params.estimatedNumEps > 0) {
            b.estimatedEndpoints((int) Math.min(Integer.MAX_VALUE, params.estimatedNumEps));
        }
        try {
            this.weft = b.build();
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
        setNativeId(newId());
    }

    private static void add(final EnumSet<Feature> set, final long features, final long bit, final Feature f) {
        if ((features & bit) != 0) {
            set.add(f);
        }
    }

    /** Closes the context: its workers (with their endpoints) and its memory registrations. */
    @Override
    public void close() {
        if (getNativeId() == null) {
            return;
        }
        setNativeId(null);
        for (final UcpWorker w : new ArrayList<>(workers)) {
            w.close();
        }
        for (final UcpMemory m : new ArrayList<>(memory)) {
            m.deregister();
        }
        weft.close();
    }

    /** The memory types the context moves: host memory only. */
    public long getMemoryTypesMask() {
        return 1L << UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_HOST;
    }

    public UcpWorker newWorker(UcpWorkerParams params) {
        return new UcpWorker(this, params);
    }

    /** Registers a direct buffer's memory (position to limit) for one-sided access by peers. */
    public UcpMemory registerMemory(ByteBuffer buf) {
        if (!buf.isDirect()) {
            throw new UcxException("registerMemory needs a direct buffer", UcsConstants.STATUS.UCS_ERR_INVALID_PARAM);
        }
        try {
            return track(new UcpMemory(this, weft.memMap(MemorySegment.ofBuffer(buf), 0), buf));
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** Imports memory another process exported: not supported. */
    public UcpMemory importMemory(ByteBuffer buf) {
        throw Jucx.unsupported("importing exported memory (UcpContext.importMemory)");
    }

    /** Registers memory at an address, or allocates it ({@link UcpMemMapParams#allocate()}). */
    public UcpMemory memoryMap(UcpMemMapParams params) {
        Jucx.checkHost(params.memoryType);
        if (params.has(UcpConstants.UCP_MEM_MAP_PARAM_FIELD_EXPORTED_MEMH_BUFFER)) {
            throw Jucx.unsupported("mapping exported memory (UcpMemMapParams.setExportedMemh)");
        }
        final boolean alloc = (params.flags & UcpConstants.UCP_MEM_MAP_ALLOCATE) != 0;
        final boolean fixed = (params.flags & UcpConstants.UCP_MEM_MAP_FIXED) != 0;
        final long address = params.getAddress();
        if (!alloc && (address == 0 || fixed)) {
            throw new UcxException(address == 0 ? "memoryMap: registering memory needs an address (setAddress) or "
                + "allocate()" : "memoryMap: fixed() applies to allocate() only", UcsConstants.STATUS.UCS_ERR_INVALID_PARAM);
        }
        try {
            final MemoryMap m;
            if (!alloc) { // register the caller's memory where it is
                m = weft.memMap(MemorySegment.ofAddress(address).reinterpret(params.getLength()), 0);
            } else if (address == 0) {
                m = weft.memMap(params.getLength(), fixed ? MemoryMap.FIXED : 0);
            } else { // UCX allocates at the address when asked (fixed) and takes it as a hint otherwise
                m = weft.memMap(address, params.getLength(), MemoryMap.FIXED);
            }
            return track(new UcpMemory(this, m, null));
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    private UcpMemory track(final UcpMemory m) {
        memory.add(m);
        return m;
    }

    void forget(final UcpMemory m) {
        memory.remove(m);
    }
}
