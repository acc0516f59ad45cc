package mpi;

import java.lang.foreign.MemorySegment;

/**
 * The moves collective algorithms are made of: messages on the communicator's collective context (so no
 * point-to-point receive, wildcard or not, can take them), tagged with the collective's sequence number, and
 * local copies between typed buffers. One {@code Coll} serves one collective call at a time ({@link #start}
 * readies it for the next).
 */
final class Coll {
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);
    /** Scratch buffers from this size on are native memory. */
    static final long NATIVE_SCRATCH = 64 * 1024;

    Comm comm;
    int rank;
    int size;
    private int seq;

    Coll(final Comm comm) {
        start(comm);
    }

    /** Readies this for the next collective on {@code c}, which takes the communicator's next sequence number. */
    void start(final Comm c) {
        this.comm = c;
        this.rank = c.rank;
        this.size = c.size;
        this.seq = c.nextCollectiveSeq();
    }

    /** Sub-tags per collective: a message's place among several between the same two ranks. */
    static final int SUBS = 64;

    private long tagFrom(final int source) {
        return tagFrom(source, 0);
    }

    private long tagFrom(final int source, final int sub) {
        return Tags.make(comm.cid + 1, source, (seq * SUBS + sub) & Tags.TAG_UB);
    }

    // ------------------------------------------------------------------ raw bytes

    InFlight isend(final int dest, final MemorySegment seg, final long off, final long len) {
        return Messaging.sendBytes(comm, dest, tagFrom(rank), seg, off, len);
    }

    InFlight irecv(final int source, final MemorySegment seg, final long off, final long len) {
        return Messaging.recvBytes(comm, tagFrom(source), seg, off, len);
    }

    InFlight isendEmpty(final int dest) {
        return isend(dest, EMPTY, 0, 0);
    }

    InFlight irecvEmpty(final int source) {
        return irecv(source, EMPTY, 0, 0);
    }

    void send(final int dest, final MemorySegment seg, final long off, final long len) throws MPIException {
        await(isend(dest, seg, off, len));
    }

    void recv(final int source, final MemorySegment seg, final long off, final long len) throws MPIException {
        await(irecv(source, seg, off, len));
    }

    /** Sends to one rank and receives from another at once (no deadlock whatever the order of the peers). */
    void sendRecv(final int dest, final MemorySegment out, final long outOff, final long outLen, final int source,
                  final MemorySegment in, final long inOff, final long inLen) throws MPIException {
        final InFlight r = irecv(source, in, inOff, inLen);
        final InFlight s = isend(dest, out, outOff, outLen);
        await(r);
        await(s);
    }

    // ------------------------------------------------------------------ typed buffers

    InFlight isend(final int dest, final Span span, final int count, final Datatype type, final int sub) {
        return Messaging.send(comm, dest, tagFrom(rank, sub), span, count, type, false);
    }

    InFlight irecv(final int source, final Span span, final int count, final Datatype type, final int sub) {
        return Messaging.recv(comm, tagFrom(source, sub), -1L, span, count, type);
    }

    /** Waits for a collective message; a length mismatch between ranks is ERR_TRUNCATE. */
    static void await(final InFlight r) throws MPIException {
        final weft.ucs.Status st = r.awaitStatus();
        final long len = r.length();
        r.release();
        if (st == weft.ucs.Status.MESSAGE_TRUNCATED) {
            throw new MPIException(MPI.ERR_TRUNCATE, "a collective received " + len + " B, more than the buffer "
                + "holds: the ranks disagree on counts or datatypes");
        }
        if (st.isError()) {
            throw new MPIException(MPI.ERR_OTHER, "a collective's message failed: " + st);
        }
    }

    /**
     * Waits for the first {@code n} messages of {@code rs} (null entries skipped) and clears them; the first
     * failure is thrown once every one was released.
     */
    static void awaitAll(final InFlight[] rs, final int n) throws MPIException {
        MPIException first = null;
        for (int i = 0; i < n; i++) {
            final InFlight r = rs[i];
            rs[i] = null;
            if (r == null) {
                continue;
            }
            try {
                await(r);
            } catch (final MPIException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Copies {@code count} elements of one typed buffer to another (the data a rank keeps for itself). */
    static void copy(final Span from, final int fromCount, final Datatype fromType, final Span to, final int toCount,
                     final Datatype toType) throws MPIException {
        final long bytes = fromCount * fromType.size;
        if (bytes > toCount * toType.size) {
            throw new MPIException(MPI.ERR_TRUNCATE, "this rank's own block (" + bytes + " B) is larger than its "
                + "place in the receive buffer (" + toCount * toType.size + " B)");
        }
        if (bytes == 0) {
            return;
        }
        if (fromType.contiguous && toType.contiguous) {
            MemorySegment.copy(from.segment, from.origin, to.segment, to.origin, bytes / toType.size * toType.size);
            return;
        }
        final MemorySegment packed = scratch(bytes);
        TypeCursor.pack(from, fromCount, fromType, packed, 0);
        final int whole = Math.toIntExact(bytes / toType.size);
        TypeCursor.unpack(packed, 0, to, whole, toType);
    }

    /**
     * A scratch buffer of {@code bytes}: a heap array when small, native memory (freed by the garbage
     * collector) from {@link #NATIVE_SCRATCH} on, which ucp can move without copies (registered rendezvous).
     */
    static MemorySegment scratch(final long bytes) {
        return bytes < NATIVE_SCRATCH ? MemorySegment.ofArray(new byte[Math.toIntExact(bytes)])
            : java.lang.foreign.Arena.ofAuto().allocate(bytes, 64);
    }

    /** {@code count} elements of {@code type} packed into a new byte buffer. */
    static MemorySegment packed(final Span span, final int count, final Datatype type) {
        final MemorySegment m = scratch(count * type.size);
        TypeCursor.pack(span, count, type, m, 0);
        return m;
    }
}
