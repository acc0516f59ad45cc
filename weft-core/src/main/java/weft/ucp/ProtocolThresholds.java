package weft.ucp;

import weft.ucp.wire.EagerFirstHeader;
import weft.ucp.wire.EagerHeader;

/**
 * Where an endpoint switches protocol as the message grows: eager short (inline) → eager bcopy
 * (copied, one or more fragments) → eager zcopy (from the user's buffer, where the AM lane can) or
 * GET-based eager ({@link EagerGet}, where the AM lane's transport allocates memory the peer maps) →
 * rendezvous. Computed from the lanes' performance model as the crossover of two linear cost functions,
 * unless {@code WEFT_MAX_SHORT} / {@code WEFT_ZCOPY_THRESH} / {@code WEFT_RNDV_THRESH} set them.
 *
 * <p>Eager zcopy: a copy costs s/memcpy and, past one bcopy fragment, a send per fragment; zero-copy costs
 * a completion to track (the buffer stays the transport's until it fires) and sends fragments of the
 * lane's larger zero-copy limit. So by default it starts where a copy would need a second fragment.
 *
 * <p>Model (times in ns for a message of s bytes):
 * <ul>
 *   <li>eager: latency + overhead + s/bw(am) + s/memcpy (the receiver copies out; overhead is paid per
 *   fragment, spread per byte);</li>
 *   <li>rendezvous get: 2·latency(am) + 2·overhead (RTS, ATS) + latency(rma) + overhead(rma) + registration
 *   + s/Σbw(rma lanes);</li>
 *   <li>rendezvous over AM (no get lane): never cheaper than eager; used from
 *   {@link #AM_RNDV_THRESH} so that huge messages are not buffered unexpectedly.</li>
 * </ul>
 */
final class ProtocolThresholds {
    /** Bytes per ns a receiver copies at (10 GB/s: a conservative memcpy figure for this class of machine). */
    static final double MEMCPY_BW = 10.0;
    static final long AM_RNDV_THRESH = 256 * 1024;

    final long maxShort;
    final long maxBcopy;
    final long rndvThresh;
    final boolean rndvGet;
    /** Rendezvous by put ({@code WEFT_RNDV_SCHEME=put} or auto on tcp; every rendezvous lane can put zero-copy and register). */
    final boolean rndvPut;
    /** First size sent eager zero-copy (contiguous data only); Long.MAX_VALUE when the AM lane cannot. */
    final long zcopyThresh;
    /** Limit of one zero-copy AM fragment (header + payload) on the AM lane. */
    final long maxZcopy;
    /** GET-based eager ({@link EagerGet}) from this size to {@link #eagerGetMax}; Long.MAX_VALUE when off. */
    final long eagerGetMin;
    final long eagerGetMax;

    /**
     * The thresholds of an endpoint not bound yet (a socket-address connect in its handshake): no send is
     * short, so every operation takes the slow path, which queues it until the endpoint binds.
     */
    static final ProtocolThresholds UNBOUND = new ProtocolThresholds();

    private ProtocolThresholds() {
        maxShort = -1;
        maxBcopy = 0;
        rndvThresh = Long.MAX_VALUE;
        rndvGet = false;
        rndvPut = false;
        zcopyThresh = Long.MAX_VALUE;
        maxZcopy = 0;
        eagerGetMin = Long.MAX_VALUE;
        eagerGetMax = -1;
    }

    ProtocolThresholds(final Context ctx, final Lane am, final Lane[] rndv) {
        final long laneShort = Math.min(am.local.attrs.amMaxShort(), am.remote.amMaxShort());
        maxShort = ctx.maxShort >= 0 ? Math.min(ctx.maxShort, laneShort) : laneShort;
        maxBcopy = Math.min(am.local.attrs.amMaxBcopy(), am.remote.amMaxBcopy());
        // auto: put where a get brings nothing (every rendezvous lane is the AM lane's transport, tcp) and the
        // lanes can put zero-copy into registered memory: the payload then streams from the socket straight
        // into the receive buffer, where streaming it as active messages lands it in the rx buffer first
        // (a copy more); measured on tcp tag_bw 1 MiB: put 3.4-3.6 GB/s, am 2.8-3.1 (bench/results)
        boolean put = rndv.length > 0 && ("put".equals(ctx.rndvScheme)
            || "auto".equals(ctx.rndvScheme) && !getPaysOff(am, rndv));
        for (final Lane l : rndv) {
            put &= l.local.attrs.has(weft.uct.Capability.PUT_ZCOPY)
                && l.local.mdAttrs.has(weft.uct.MemoryDomainAttributes.REG);
        }
        rndvPut = put;
        rndvGet = !put && rndv.length > 0 && !"am".equals(ctx.rndvScheme)
            && ("get".equals(ctx.rndvScheme) || getPaysOff(am, rndv));
        final boolean zcopy = am.local.attrs.has(weft.uct.Capability.AM_ZCOPY)
            && (am.remote.capabilities() & weft.uct.Capability.AM_ZCOPY) != 0;
        // the peer's limit is not in its address: both sides of a lane run the same transport, whose zero-copy
        // limit (tcp: its receive buffer) is the same where the configuration is (as the launcher makes it)
        maxZcopy = zcopy && am.local.attrs.amMaxHeader() >= EagerFirstHeader.LENGTH ? am.local.attrs.amMaxZcopy() : 0;
        if (maxZcopy <= EagerFirstHeader.LENGTH) {
            zcopyThresh = Long.MAX_VALUE;
        } else if (ctx.zcopyThresh >= 0) {
            zcopyThresh = Math.max(ctx.zcopyThresh, maxShort + 1);
        } else {
            zcopyThresh = Math.max(maxBcopy - EagerHeader.LENGTH + 1, maxShort + 1);
        }
        // GET-based eager where the AM lane's transport allocates memory the peer maps (both run it)
        final boolean eagerGet = ctx.eagerGetMax > 0 && ctx.eagerGetPool >= ctx.eagerGetMax
            && EagerGet.mappable(am.local.transport);
        final long egMin = ctx.eagerGetThresh >= 0 ? Math.max(ctx.eagerGetThresh, maxShort + 1)
            : maxBcopy - EagerHeader.LENGTH + 1;
        if (ctx.rndvThresh >= 0) {
            rndvThresh = Math.max(ctx.rndvThresh, 0);
        } else if (eagerGet && egMin <= ctx.eagerGetMax) {
            // measured on shm: up to 64 KiB a copy through the mapped pool beats the rendezvous round trips
            rndvThresh = ctx.eagerGetMax + 1;
        } else if (!rndvGet) {
            rndvThresh = AM_RNDV_THRESH;
        } else {
            final double amLat = am.latencyNs();
            final double amOvh = am.local.attrs.overheadNs() + am.remote.overheadNs();
            final double eagerFixed = amLat + amOvh;
            final double eagerPerByte = 1e9 / am.bandwidth() + 1 / MEMCPY_BW + amOvh / Math.max(1, maxBcopy);
            double rmaBw = 0;
            double rmaLat = 0;
            double rmaOvh = 0;
            double reg = 0;
            for (final Lane l : rndv) {
                rmaBw += l.bandwidth();
                rmaLat = Math.max(rmaLat, l.latencyNs());
                rmaOvh = Math.max(rmaOvh, l.local.attrs.overheadNs());
                reg = Math.max(reg, l.local.mdAttrs.regCostNs());
            }
            final double rndvFixed = 2 * amLat + 2 * amOvh + rmaLat + rmaOvh + reg;
            final double rndvPerByte = 1e9 / rmaBw;
            if (rndvPerByte >= eagerPerByte) {
                rndvThresh = AM_RNDV_THRESH;
            } else {
                final double cross = (rndvFixed - eagerFixed) / (eagerPerByte - rndvPerByte);
                rndvThresh = Math.max(maxShort + 1, (long) Math.ceil(cross));
            }
        }
        if (eagerGet && egMin <= Math.min(ctx.eagerGetMax, rndvThresh - 1)) {
            eagerGetMin = egMin;
            eagerGetMax = Math.min(ctx.eagerGetMax, rndvThresh - 1);
        } else {
            eagerGetMin = Long.MAX_VALUE;
            eagerGetMax = -1;
        }
    }

    /** True if a send of {@code length} bytes goes GET-based eager. */
    boolean eagerGet(final long length) {
        return length >= eagerGetMin && length <= eagerGetMax;
    }

    /**
     * A get pays off when it brings a data path the AM lane does not have (another transport, such as
     * cma beside shm), or when the AM lane cannot send from user memory. When every rendezvous lane is the
     * AM lane's own transport and that lane sends zero-copy, the get would be served by the same peer
     * over the same kind of connection: streaming the data on the AM lane after clear-to-send saves the
     * get round trips and lets the sender pipeline (tcp).
     */
    static boolean getPaysOff(final Lane am, final Lane[] rndv) {
        if (!am.local.attrs.has(weft.uct.Capability.AM_ZCOPY)
            || (am.remote.capabilities() & weft.uct.Capability.AM_ZCOPY) == 0) {
            return true;
        }
        for (final Lane l : rndv) {
            if (l.local.transport != am.local.transport) {
                return true;
            }
        }
        return false;
    }

    String describe() {
        if (this == UNBOUND) {
            return String.format("tag_send: not connected yet (the socket-address handshake is running)%n");
        }
        if (eagerGetMin <= eagerGetMax) {
            return String.format("tag_send: 0..%d eager short, ..%d eager bcopy (%s), ..%d eager get (pool of the AM "
                    + "lane's memory), %d.. rendezvous (%s)%n", maxShort, eagerGetMin - 1,
                eagerGetMin - 1 > maxBcopy ? "multi-fragment above " + maxBcopy : "single", eagerGetMax,
                eagerGetMax + 1, rndvGet ? "get" : rndvPut ? "put" : "am");
        }
        if (zcopyThresh < rndvThresh) {
            return String.format("tag_send: 0..%d eager short, ..%d eager bcopy (%s), ..%d eager zcopy (fragments "
                    + "of %d), %d.. rendezvous (%s)%n", maxShort, zcopyThresh - 1,
                zcopyThresh - 1 > maxBcopy ? "multi-fragment above " + maxBcopy : "single", rndvThresh - 1,
                maxZcopy, rndvThresh, rndvGet ? "get" : rndvPut ? "put" : "am");
        }
        return String.format("tag_send: 0..%d eager short, ..%d eager bcopy (%s), %d.. rendezvous (%s)%n",
            maxShort, rndvThresh - 1, rndvThresh - 1 > maxBcopy ? "multi-fragment above " + maxBcopy : "single",
            rndvThresh, rndvGet ? "get" : rndvPut ? "put" : "am");
    }
}
