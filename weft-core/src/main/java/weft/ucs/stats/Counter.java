package weft.ucs.stats;

/** The per-interface counters every transport maintains (read by tools and tests). */
public enum Counter {
    TX_MESSAGES("messages sent (AM)"),
    TX_BYTES("payload bytes sent (AM, put)"),
    RX_MESSAGES("messages received (AM)"),
    RX_BYTES("payload bytes received"),
    PUTS("put operations initiated"),
    GETS("get operations initiated"),
    ATOMICS("atomic operations initiated"),
    NO_RESOURCE("operations refused with NO_RESOURCE"),
    PENDING_DISPATCHED("pending requests dispatched"),
    ERRORS("operations that failed with an error"),
    WAKEUPS_SENT("wakeup signals sent to armed peers"),
    TX_SPLICED("payload bytes handed to the kernel by reference instead of copied (tcp splice; part of tx_bytes)"),
    PUT_SIGNALS("puts issued with their signal in one transport operation (put-with-signal)"),
    STREAM_ACKS("stream acknowledgements sent (tcp: the peer may forget the bytes they cover from its replay log)"),
    ACK_ASKS("frames sent asking the peer for a stream acknowledgement (tcp: the replay log reached its ask mark)"),
    REPLAY_LOG_BYTES("bytes of tcp replay-log copy rings: each connection's largest ring, summed");

    private final String doc;

    Counter(final String doc) {
        this.doc = doc;
    }

    public String doc() {
        return doc;
    }
}
