package mpi;

import weft.ucp.AmFlags;
import weft.ucp.Endpoint;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The sending side of the active-message path ({@link AmMatcher}). A message whose tag word and data fit the
 * lane's short limit goes as one headerless AM with the tag leading a staged copy of the data (inline, no
 * request); a longer one carries the tag as the AM's 8-byte header (eager, or rendezvous from the endpoint's
 * threshold on: the receiver pulls the data into its buffer once a receive matches). A synchronous send is
 * always a rendezvous: its request completes only when the receiver matched the message and pulled its data,
 * which is the completion MPI_Ssend asks for. A derived datatype is packed first.
 *
 * <p>A blocking send waits for its request before returning, so it stages in memory of its thread's
 * that the next blocking send reuses; a non-blocking one gets memory of its own, held by its {@link UcpOp}.
 */
final class AmSends {
    /** The calling thread's staging memory for blocking sends (grown on demand, then reused). */
    private final ThreadLocal<MemorySegment[]> staging = ThreadLocal.withInitial(() -> new MemorySegment[1]);

    /** Starts a send; the handle keeps what the transport reads until it completes. */
    InFlight send(final Comm c, final int dest, final long tag, final Span span, final int count, final Datatype type,
            final boolean sync) {
        final long bytes = count * type.size;
        return type.contiguous ? sendBytes(c, dest, tag, span.segment, span.origin, bytes, sync)
            : sendBytes(c, dest, tag, Coll.packed(span, count, type), 0, bytes, sync);
    }

    /** Starts a send of raw bytes. */
    InFlight sendBytes(final Comm c, final int dest, final long tag, final MemorySegment data, final long off,
                 final long bytes, final boolean sync) {
        final Endpoint ep = c.endpoint(dest);
        final UcpOp op = UcpOp.take();
        final MemorySegment mem = op.staging(small(ep, bytes, sync) ? Long.BYTES + bytes : Long.BYTES);
        return op.start(start(ep, tag, data, off, bytes, sync, mem), data);
    }

    /** Sends and waits until the buffer may be reused (a synchronous send: until matched). */
    void sendBlocking(final Comm c, final int dest, final long tag, final Span span, final int count,
                      final Datatype type, final boolean sync) throws MPIException {
        final Endpoint ep = c.endpoint(dest);
        final long bytes = count * type.size;
        final MemorySegment data = type.contiguous ? span.segment : Coll.packed(span, count, type);
        final long off = type.contiguous ? span.origin : 0;
        final MemorySegment[] slot = staging.get();
        final long need = small(ep, bytes, sync) ? Long.BYTES + bytes : Long.BYTES;
        if (slot[0] == null || slot[0].byteSize() < need) {
            slot[0] = MemorySegment.ofArray(new byte[Math.toIntExact(Math.max(need, 256))]);
        }
        Messaging.awaitSend(start(ep, tag, data, off, bytes, sync, slot[0]));
    }

    private static boolean small(final Endpoint ep, final long bytes, final boolean sync) {
        return !sync && Long.BYTES + bytes <= ep.maxShort();
    }

    private static weft.ucp.Request start(final Endpoint ep, final long tag, final MemorySegment data, final long off,
                                          final long bytes, final boolean sync, final MemorySegment mem) {
        mem.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, tag);
        if (small(ep, bytes, sync)) {
            MemorySegment.copy(data, off, mem, Long.BYTES, bytes);
            return ep.sendAm(AmMatcher.AM_ID, mem, 0, Long.BYTES + bytes, 0);
        }
        return ep.sendAm(AmMatcher.AM_ID, mem, 0, Long.BYTES, data, off, bytes, sync ? AmFlags.SEND_RNDV : 0);
    }
}
