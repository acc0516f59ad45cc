package weft.ucp;

/**
 * A lane an endpoint has, or a pair (local interface, peer resource) it could connect, scored from the
 * performance model without connecting anything: {@link Rkey} weighs every transport of a key this way
 * and connects only the lanes it then uses.
 *
 * @param lane   the endpoint's lane, or null when the pair is not connected yet
 * @param local  the local interface
 * @param remote the peer's resource
 */
record LaneOption(Lane lane, WorkerIface local, WorkerAddress.Entry remote) {
    static LaneOption of(final Lane l) {
        return new LaneOption(l, l.local, l.remote);
    }

    /** As {@link Lane#latencyNs()}. */
    double latencyNs() {
        return Math.max(local.attrs.latencyNs(), remote.latencyNs());
    }

    /** As {@link Lane#bandwidth()}. */
    double bandwidth() {
        return Math.min(local.attrs.bandwidth(), remote.bandwidth());
    }

    /** 1/(latency + both sides' overheads), per microsecond: higher is better. */
    double score() {
        return 1e3 / (latencyNs() + local.attrs.overheadNs() + remote.overheadNs());
    }

    String name() {
        return local.name();
    }
}
