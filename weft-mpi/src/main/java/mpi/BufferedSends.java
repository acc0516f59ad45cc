package mpi;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The buffered-send mode's accounting: a program attaches a buffer ({@link MPI#attachBuffer}); each
 * {@code bSend} copies its message and counts its size plus {@link MPI#BSEND_OVERHEAD} against that buffer
 * until the send completes, so a program that buffers more than it attached gets {@link MPI#ERR_BUFFER}
 * as under any MPI. A message short enough to leave inline (the AM lane's short limit) needs no room, as
 * under Open MPI, whose programs may buffered-send such messages without attaching anything.
 */
final class BufferedSends {
    private byte[] attached;
    private long used;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();

    private record Pending(InFlight request, long bytes) {
    }

    synchronized void attach(final byte[] buffer) throws MPIException {
        if (attached != null) {
            throw new MPIException(MPI.ERR_BUFFER, "a buffer is already attached (detach it first)");
        }
        if (buffer == null) {
            throw new MPIException(MPI.ERR_BUFFER, "null buffer");
        }
        attached = buffer;
    }

    /** Waits for every buffered send, then hands the buffer back. */
    byte[] detach() throws MPIException {
        drain();
        synchronized (this) {
            final byte[] b = attached;
            attached = null;
            return b;
        }
    }

    /** Takes room for a message of {@code bytes}; fails when the attached buffer cannot hold it now. */
    private void reserve(final long bytes) throws MPIException {
        reap();
        if (attached == null) {
            throw new MPIException(MPI.ERR_BUFFER, "bSend needs a buffer attached with MPI.attachBuffer");
        }
        final long need = bytes + MPI.BSEND_OVERHEAD;
        if (used + need > attached.length) {
            throw new MPIException(MPI.ERR_BUFFER, "the attached buffer (" + attached.length + " B) cannot hold "
                + "another " + need + " B (" + used + " B held by buffered sends in flight)");
        }
        used += need;
    }

    /** Copies the message and starts sending the copy (counted against the buffer until it has left). */
    synchronized void send(final Comm comm, final Span span, final int count, final Datatype type, final int dest,
                           final long tag) throws MPIException {
        final long bytes = count * type.size;
        // a message short enough to leave inline needs no room in the attached buffer (as under Open MPI)
        final long held = bytes <= comm.endpoint(dest).maxShort() ? 0 : bytes + MPI.BSEND_OVERHEAD;
        if (held > 0) {
            reserve(bytes);
        }
        final Span copy = Span.of(Coll.packed(span, count, type));
        final InFlight r = Messaging.send(comm, dest, tag, copy, Math.toIntExact(bytes), MPI.BYTE, false);
        pending.add(new Pending(r, held));
    }

    /** Waits for every buffered send to leave (at finalize and detach). */
    void drain() throws MPIException {
        while (true) {
            final Pending p;
            synchronized (this) {
                p = pending.poll();
                if (p == null) {
                    return;
                }
            }
            final weft.ucs.Status st = p.request().awaitStatus();
            p.request().release();
            synchronized (this) {
                used -= p.bytes();
            }
            if (st.isError()) {
                throw new MPIException(MPI.ERR_OTHER, "a buffered send failed: " + st);
            }
        }
    }

    private void reap() throws MPIException {
        for (final Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            final Pending p = it.next();
            if (p.request().isCompleted()) {
                final weft.ucs.Status st = p.request().status();
                p.request().release();
                it.remove();
                used -= p.bytes();
                if (st.isError()) {
                    throw new MPIException(MPI.ERR_OTHER, "a buffered send failed: " + st);
                }
            }
        }
    }
}
