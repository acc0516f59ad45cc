package weft.uct;

import weft.ucs.Status;

import java.lang.foreign.MemorySegment;

/**
 * A connection from an {@link Interface} to one peer interface (UCT's ep). Single threaded.
 *
 * <p>Completion contract (exactly UCT's): {@link Status#OK} = done now, buffers reusable;
 * {@link Status#IN_PROGRESS} = the {@link Completion} passed in completes later from progress;
 * {@link Status#NO_RESOURCE} = nothing happened, retry or {@link #pendingAdd}; any error status =
 * the operation failed and nothing more will happen for it. Remote addresses are checked against
 * the region of the remote key: outside it, the operation returns {@link Status#OUT_OF_RANGE}
 * and touches nothing.
 *
 * <p>An operation the interface does not advertise in its capabilities returns
 * {@link Status#UNSUPPORTED}.
 *
 * <p>Zero-copy operations ({@code amZcopy}, {@code putZcopy}, {@code getZcopy}): the memory the
 * {@link IoVector} describes must stay valid (and, for a get, untouched) until completion, but the
 * {@code IoVector} object itself is the caller's again as soon as the call returns: a transport that
 * needs the entries later copies them. Callers reuse one vector for every piece of an operation.
 */
public interface Endpoint extends AutoCloseable {
    Interface iface();

    // ---- active messages ----

    /** Sends an 8-byte header plus {@code length} bytes inline (length ≤ amMaxShort). */
    Status amShort(int id, long header, MemorySegment payload, long offset, int length);

    /**
     * Sends a message whose payload {@code packer} writes into the transport buffer.
     *
     * @return the packed length (≥ 0), or a negative {@link Status#code()} (e.g. NO_RESOURCE)
     */
    long amBcopy(int id, Packer packer);

    /** Sends header + iov without an intermediate copy; the iov's memory must stay valid until completion. */
    Status amZcopy(int id, MemorySegment header, long headerOffset, int headerLength, IoVector iov,
                   Completion completion);

    // ---- put ----

    Status putShort(MemorySegment src, long offset, int length, long remoteAddress, RemoteKey rkey);

    /** @return bytes written (≥ 0) or a negative status code */
    long putBcopy(Packer packer, long remoteAddress, RemoteKey rkey);

    Status putZcopy(IoVector iov, long remoteAddress, RemoteKey rkey, Completion completion);

    /**
     * Put-with-signal in one transport operation ({@link Capability#PUT_SIGNAL}): {@code length} bytes, up to the
     * larger of {@link InterfaceAttributes#putMaxShort()} and {@link InterfaceAttributes#putMaxBcopy()}, copied
     * out inside the call as by {@link #putShort} or {@link #putBcopy}, then the 64-bit post atomic
     * {@code signalOp} (ADD, AND, OR, XOR, or SWAP as a set) of {@code signal} on the word at {@code
     * signalAddress}, performed at the target after the data is in place, so that a target thread that sees the
     * signal sees the data. OK = both issued (the source is reusable);
     * NO_RESOURCE or an error = neither was. Without the capability: {@link Status#UNSUPPORTED}.
     */
    default Status putShortSignal(MemorySegment src, long offset, int length, long remoteAddress, RemoteKey rkey,
                                  AtomicOp signalOp, long signal, long signalAddress, RemoteKey signalKey) {
        return Status.UNSUPPORTED;
    }

    // ---- get ----

    /**
     * A contiguous get finished inside the call ({@link Capability#GET_SHORT}: a lane that maps the peer's
     * memory copies {@code length} bytes from it into {@code dst[offset, +length)}); no completion, no iov.
     * UNSUPPORTED where the lane cannot.
     */
    default Status getShort(MemorySegment dst, long offset, int length, long remoteAddress, RemoteKey rkey) {
        return Status.UNSUPPORTED;
    }

    Status getBcopy(Unpacker unpacker, long length, long remoteAddress, RemoteKey rkey, Completion completion);

    Status getZcopy(IoVector iov, long remoteAddress, RemoteKey rkey, Completion completion);

    // ---- atomics ----

    /** ADD, AND, OR, XOR or SWAP (a set: no old value) on the 64-bit word at {@code remoteAddress}, 8-byte aligned. */
    Status atomic64Post(AtomicOp op, long value, long remoteAddress, RemoteKey rkey);

    /** Same for 32-bit words (4-byte aligned). */
    Status atomic32Post(AtomicOp op, int value, long remoteAddress, RemoteKey rkey);

    /**
     * Fetching 64-bit op (ADD, AND, OR, XOR, SWAP); the old value is written to {@code result}
     * at {@code resultOffset} (native order) before completion.
     */
    Status atomic64Fetch(AtomicOp op, long value, MemorySegment result, long resultOffset, long remoteAddress,
                         RemoteKey rkey, Completion completion);

    Status atomic32Fetch(AtomicOp op, int value, MemorySegment result, long resultOffset, long remoteAddress,
                         RemoteKey rkey, Completion completion);

    /** 64-bit compare-and-swap; the old value goes to {@code result}. */
    Status atomic64Cswap(long compare, long swap, MemorySegment result, long resultOffset, long remoteAddress,
                         RemoteKey rkey, Completion completion);

    Status atomic32Cswap(int compare, int swap, MemorySegment result, long resultOffset, long remoteAddress,
                         RemoteKey rkey, Completion completion);

    // ---- ordering, completion, flow control ----

    /**
     * Completes every operation issued before: OK if nothing is outstanding, IN_PROGRESS (the
     * completion fires later) or NO_RESOURCE (queue a pending request and retry).
     *
     * @param flags {@link Interface#FLUSH_LOCAL}, {@link Interface#FLUSH_REMOTE} or
     *              {@link Interface#FLUSH_CANCEL}
     */
    Status flush(int flags, Completion completion);

    /** Operations issued before complete before those issued after, on this endpoint. */
    Status fence();

    /**
     * Queues {@code request} to be dispatched when resources free up. OK = queued; BUSY =
     * resources are available now, retry the operation instead.
     */
    Status pendingAdd(PendingRequest request);

    /** Removes every pending request, handing each to {@code sink}. */
    void pendingPurge(java.util.function.Consumer<PendingRequest> sink);

    /**
     * Checks the peer is alive. OK if it is (or the check is under way); an error status if it is
     * known dead. Failures are also reported to the interface's {@link ErrorHandler}.
     */
    Status check();

    /** Destroys the endpoint; outstanding operations complete with CANCELED. Idempotent. */
    @Override
    void close();
}
