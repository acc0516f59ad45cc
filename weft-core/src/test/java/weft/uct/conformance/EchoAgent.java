package weft.uct.conformance;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

import weft.ucs.Status;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceAttributes;
import weft.uct.IoVector;

/**
 * The receiving side of a peer: every active message, on any id, is copied and sent back on the
 * same id through the endpoint to the test interface (bcopy if it fits, else zcopy). Sends that
 * get NO_RESOURCE stay queued and are retried by {@link #pump()}, so nothing is dropped and the
 * order is kept. Used by the in-JVM peer and by {@link ConformancePeer}. Single threaded (the
 * owner of the interface).
 */
final class EchoAgent {
    private final Interface iface;
    private final InterfaceAttributes attrs;
    private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
    private final ArrayDeque<Integer> ids = new ArrayDeque<>();
    private final Arena arena = Arena.ofAuto();
    private Endpoint ep;
    private long received;
    private long echoed;
    private String error;

    EchoAgent(final Interface iface) {
        this.iface = iface;
        this.attrs = iface.attributes();
        for (int id = 0; id < Interface.AM_ID_COUNT; id++) {
            final int amId = id;
            iface.setAmHandler(id, (data, off, len, flags) -> {
                received++;
                queue.add(data.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                ids.add(amId);
                return Status.OK;
            });
        }
    }

    /** Starts echoing through {@code endpoint} (closing the previous one). */
    void connect(final Endpoint endpoint) {
        disconnect();
        ep = endpoint;
    }

    /** Closes the echo endpoint and forgets queued echoes. */
    void disconnect() {
        if (ep != null) {
            ep.close();
            ep = null;
        }
        queue.clear();
        ids.clear();
    }

    long received() {
        return received;
    }

    long echoed() {
        return echoed;
    }

    /** The first echo error, or null. */
    String error() {
        return error;
    }

    /** Sends queued echoes until the queue is empty or the transport says NO_RESOURCE. */
    int pump() {
        if (ep == null) {
            return 0;
        }
        int n = 0;
        byte[] msg;
        while ((msg = queue.peek()) != null) {
            final Status st = send(ids.peek(), msg);
            if (st == Status.NO_RESOURCE) {
                break;
            }
            if (st.isError() && error == null) {
                error = "echo of " + msg.length + " bytes on id " + ids.peek() + " failed: " + st;
            }
            queue.poll();
            ids.poll();
            echoed++;
            n++;
        }
        return n;
    }

    private Status send(final int id, final byte[] msg) {
        if (attrs.has(Capability.AM_BCOPY) && msg.length <= attrs.amMaxBcopy()) {
            final long r = ep.amBcopy(id, (dest, off, cap) -> {
                if (cap < msg.length) {
                    if (error == null) {
                        error = "AM bcopy packer capacity " + cap + " < " + msg.length + " (amMaxBcopy "
                            + attrs.amMaxBcopy() + ")";
                    }
                    return 0;
                }
                MemorySegment.copy(msg, 0, dest, ValueLayout.JAVA_BYTE, off, msg.length);
                return msg.length;
            });
            return Status.ofLength(r);
        }
        if (attrs.has(Capability.AM_ZCOPY) && msg.length <= attrs.amMaxZcopy() + (long) attrs.amMaxHeader()) {
            // the iov must stay valid until completion: an auto-arena segment referenced by the lambda
            final MemorySegment buf = arena.allocate(Math.max(1, msg.length));
            MemorySegment.copy(msg, 0, buf, ValueLayout.JAVA_BYTE, 0, msg.length);
            final Completion c = new Completion(st -> {
                if (st.isError() && error == null) {
                    error = "echo zcopy completed with " + st + " (buffer " + buf.byteSize() + ")";
                }
            }).reset(1);
            // what exceeds the zcopy payload limit travels as the zcopy header (header + iov = the message)
            final int hdr = (int) Math.max(0, msg.length - attrs.amMaxZcopy());
            return ep.amZcopy(id, buf, 0, hdr, IoVector.of(buf, hdr, msg.length - hdr), c);
        }
        if (attrs.has(Capability.AM_SHORT) && msg.length >= 8 && msg.length - 8 <= attrs.amMaxShort()) {
            final MemorySegment buf = MemorySegment.ofArray(msg);
            return ep.amShort(id, buf.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 0),
                MemorySegment.ofArray(msg), 8, msg.length - 8);
        }
        return Status.MESSAGE_TRUNCATED;
    }

    /** Uninstalls the handlers. */
    void close() {
        disconnect();
        for (int id = 0; id < Interface.AM_ID_COUNT; id++) {
            iface.setAmHandler(id, null);
        }
    }
}
