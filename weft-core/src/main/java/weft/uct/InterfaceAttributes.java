package weft.uct;

/**
 * What an interface can do and how fast: capability flags, size limits per operation class and
 * the performance model that protocol selection scores.
 *
 * @param flags          {@link Capability} bits
 * @param atomic32Ops    {@link AtomicOp#bit()} set for 32-bit atomics (post and fetch)
 * @param atomic64Ops    the same for 64-bit atomics
 * @param amMaxShort     max bytes of {@link Endpoint#amShort} payload, excluding the 8-byte header
 * @param amMaxBcopy     max bytes a bcopy AM packer may write
 * @param amMaxZcopy     max total iov bytes of an AM zcopy
 * @param amMaxHeader    max header bytes of an AM zcopy
 * @param amMaxIov       max iov entries
 * @param putMaxShort    max bytes of {@link Endpoint#putShort}
 * @param putMaxBcopy    max bytes of {@link Endpoint#putBcopy}
 * @param putMaxZcopy    max bytes of {@link Endpoint#putZcopy}
 * @param getMaxBcopy    max bytes of {@link Endpoint#getBcopy}
 * @param getMaxZcopy    max bytes of {@link Endpoint#getZcopy}
 * @param latencyNs      one-way latency of a short message
 * @param overheadNs     CPU overhead per operation on the sender
 * @param bandwidth      bytes per second of one stream
 * @param priority       tie-break between equal scores (higher wins)
 */
public record InterfaceAttributes(
    long flags, int atomic32Ops, int atomic64Ops,
    int amMaxShort, long amMaxBcopy, long amMaxZcopy, int amMaxHeader, int amMaxIov,
    int putMaxShort, long putMaxBcopy, long putMaxZcopy,
    long getMaxBcopy, long getMaxZcopy,
    double latencyNs, double overheadNs, double bandwidth, int priority) {

    public boolean has(final long capability) {
        return Capability.has(flags, capability);
    }

    /** Estimated time in ns to move {@code size} bytes: overhead + latency + size / bandwidth. */
    public double estimateNs(final long size) {
        return overheadNs + latencyNs + size * 1e9 / bandwidth;
    }
}
