package weft.uct.conformance;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import weft.ucs.Status;
import weft.uct.Interface;

/**
 * The test interface's AM handlers: records every message (id + bytes) that arrives, either
 * echoed by the peer or, in loopback mode, sent to itself. In sequence mode it keeps only a count
 * and checks that the first 8 bytes (little endian) count 0, 1, 2, ... (used for floods).
 */
final class Inbox {
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** One received message. */
    record Message(int id, byte[] data) {
    }

    private final List<Message> messages = new ArrayList<>();
    private boolean sequenceMode;
    private long count;
    private long nextSeq;
    private String orderError;

    Inbox(final Interface iface) {
        for (int id = 0; id < Interface.AM_ID_COUNT; id++) {
            final int amId = id;
            iface.setAmHandler(id, (data, off, len, flags) -> {
                count++;
                if (sequenceMode) {
                    final long seq = len >= 8 ? data.get(LONG_LE, off) : -1;
                    if (seq != nextSeq && orderError == null) {
                        orderError = "message #" + count + " carries sequence " + seq + ", expected " + nextSeq;
                    }
                    nextSeq++;
                } else {
                    messages.add(new Message(amId, data.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE)));
                }
                return Status.OK;
            });
        }
    }

    /** Forgets everything; {@code sequence} selects sequence mode. */
    void reset(final boolean sequence) {
        messages.clear();
        sequenceMode = sequence;
        count = 0;
        nextSeq = 0;
        orderError = null;
    }

    long count() {
        return count;
    }

    List<Message> messages() {
        return messages;
    }

    /** In sequence mode: the first out-of-order message, or null. */
    String orderError() {
        return orderError;
    }
}
