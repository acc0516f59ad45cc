package weft.uct.tcp;

import weft.ucs.Status;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.IoVector;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A numbered stream of active messages of every kind (short up to 64 B, bcopy up to 4 KiB, zcopy
 * 8-40 KiB, in turn) and the receiver that checks each one arrives once, in order, intact: what the
 * tcp fault tests send through broken sockets.
 */
final class TcpAmStream {
    /** The AM id the stream uses. */
    static final int AM_ID = 3;

    private TcpAmStream() {
    }

    /** Receives a numbered message stream and checks that each one comes once, in order, intact. */
    static final class Receiver {
        long next;
        final List<String> problems = new ArrayList<>();

        Status onReceive(final MemorySegment d, final long o, final long l) {
            final long seq = d.get(ValueLayout.JAVA_LONG_UNALIGNED, o);
            if (seq != next) {
                problems.add("message " + seq + " arrived when " + next + " was due");
            }
            next = seq + 1;
            if (l != 8 + payloadLength(seq)) {
                problems.add("message " + seq + " has " + (l - 8) + " bytes, not " + payloadLength(seq));
                return Status.OK;
            }
            for (long i = 0; i < l - 8; i++) {
                if (d.get(ValueLayout.JAVA_BYTE, o + 8 + i) != patternByte(seq, i)) {
                    problems.add("message " + seq + " differs at byte " + i);
                    break;
                }
            }
            return Status.OK;
        }
    }

    /** short (up to 64 B), bcopy (up to 4 KiB) and zcopy (8-40 KiB) messages in turn. */
    static long payloadLength(final long seq) {
        return switch ((int) (seq % 3)) {
            case 0 -> seq % 57;
            case 1 -> 100 + seq * 7 % 4000;
            default -> 8192 + seq * 131 % 32768;
        };
    }

    static byte patternByte(final long seq, final long i) {
        return (byte) (seq * 31 + i * 7 + (i >> 8));
    }

    /** Sends numbered messages on one endpoint, each kind of AM in turn. */
    static final class Sender {
        final Endpoint ep;
        long next;
        private final MemorySegment[] zbuf = new MemorySegment[8];
        private final Completion[] zdone = new Completion[8];
        private final MemorySegment small;

        Sender(final Endpoint ep, final Arena arena) {
            this.ep = ep;
            this.small = arena.allocate(8192, 8);
            for (int i = 0; i < zbuf.length; i++) {
                zbuf[i] = arena.allocate(8 + 40 * 1024, 8);
            }
        }

        /** Tries to send the next message: true if it went (or was queued by the transport). */
        boolean trySend() {
            final long seq = next;
            final long len = payloadLength(seq);
            final Status st;
            switch ((int) (seq % 3)) {
                case 0 -> {
                    for (long i = 0; i < len; i++) {
                        small.set(ValueLayout.JAVA_BYTE, i, patternByte(seq, i));
                    }
                    st = ep.amShort(AM_ID, seq, small, 0, (int) len);
                }
                case 1 -> {
                    final long r = ep.amBcopy(AM_ID, (dst, off, cap) -> {
                        dst.set(ValueLayout.JAVA_LONG_UNALIGNED, off, seq);
                        for (long i = 0; i < len; i++) {
                            dst.set(ValueLayout.JAVA_BYTE, off + 8 + i, patternByte(seq, i));
                        }
                        return 8 + len;
                    });
                    st = r >= 0 ? Status.OK : Status.of((int) r);
                }
                default -> {
                    final int slot = (int) (seq / 3 % zbuf.length);
                    if (zdone[slot] != null && !zdone[slot].isDone()) {
                        return false; // its buffer is still in use
                    }
                    final MemorySegment b = zbuf[slot];
                    b.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                    for (long i = 0; i < len; i++) {
                        b.set(ValueLayout.JAVA_BYTE, 8 + i, patternByte(seq, i));
                    }
                    final Completion c = new Completion().reset(1);
                    st = ep.amZcopy(AM_ID, b, 0, 8, IoVector.of(b, 8, len), c);
                    if (st == Status.IN_PROGRESS) {
                        zdone[slot] = c;
                    }
                }
            }
            if (st == Status.NO_RESOURCE) {
                return false;
            }
            assertTrue(st == Status.OK || st == Status.IN_PROGRESS, "message " + seq + ": " + st);
            next++;
            return true;
        }

        /** Sends up to {@code n} more messages, none from {@code upTo} on (fewer if the transport has no room now). */
        int send(final int n, final long upTo) {
            int k = 0;
            while (k < n && next < upTo && trySend()) {
                k++;
            }
            return k;
        }
    }
}
