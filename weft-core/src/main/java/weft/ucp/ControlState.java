package weft.ucp;

/** A queued control message ({@link ControlSend}): its AM id, header word and payload; one per pooled request. */
final class ControlState {
    int amId;
    long header;
    /** The 8-byte payload; for WIREUP, the message type (request or reply). */
    long value;

    void reset() {
        amId = 0;
        header = value = 0;
    }

    boolean isPristine() {
        return amId == 0 && header == 0 && value == 0;
    }
}
