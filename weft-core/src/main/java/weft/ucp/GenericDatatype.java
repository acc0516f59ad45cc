package weft.ucp;

import java.lang.foreign.MemorySegment;

/**
 * A user-defined data layout (like UCX's generic datatype): the protocol layer never touches the
 * user's data directly but asks this object to pack the bytes of a message it sends and to unpack the
 * bytes of a message it receives, piece by piece. One implementation usually serves many messages;
 * the per-message {@code state} (the object being serialized, a cursor, ...) is given at each call.
 *
 * <p>Pieces come in increasing {@code position} order, without overlap, covering {@code [0, length)}
 * of the message (on receive: only the part that fits in the declared capacity; the rest of a longer
 * message is dropped and the receive completes with {@link weft.ucs.Status#MESSAGE_TRUNCATED}). Both
 * methods are called from inside {@link Worker#progress()} or the starting call, on the worker's
 * thread; they must not call into the worker. An exception thrown by either is caught: the request
 * completes with {@link weft.ucs.Status#IO_ERROR} (the remaining pieces are skipped on receive and
 * sent as zeros on send, so that the peer is not left waiting).
 *
 * <p>Rendezvous-size messages with a generic (or {@link weft.uct.IoVector}) datatype move with the
 * active-message rendezvous scheme (the sender streams packed fragments after clear-to-send) instead
 * of a zero-copy get: there is no contiguous region to register.
 *
 * <pre>{@code
 * GenericDatatype longs = new GenericDatatype() {
 *     public void pack(Object s, long pos, MemorySegment dst, long off, long n) {
 *         long[] a = (long[]) s;   // the message is a's elements, little endian
 *         MemorySegment.copy(MemorySegment.ofArray(a), pos, dst, off, n);
 *     }
 *     public void unpack(Object s, long pos, MemorySegment src, long off, long n) {
 *         MemorySegment.copy(src, off, MemorySegment.ofArray((long[]) s), pos, n);
 *     }
 * };
 * ep.sendTag(7, longs, values, values.length * 8L, null);
 * worker.recvTag(longs, into, into.length * 8L, 7, -1L, null, null);
 * }</pre>
 */
public interface GenericDatatype {
    /**
     * Writes message bytes {@code [position, position + length)} to {@code dst[dstOffset, +length)}.
     *
     * @param state the object given to the send call
     */
    void pack(Object state, long position, MemorySegment dst, long dstOffset, long length);

    /**
     * Consumes message bytes {@code [position, position + length)}, found at {@code src[srcOffset, +length)}.
     * {@code src} is valid only during the call.
     *
     * @param state the object given to the receive call
     */
    void unpack(Object state, long position, MemorySegment src, long srcOffset, long length);
}
