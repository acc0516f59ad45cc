package weft.ucp;

/** What a {@link Context} is asked to support; it opens only the transports and lanes these need. */
public enum Feature {
    /** Tag-matched send/receive ({@link Endpoint#sendTag}, {@link Worker#recvTag}). */
    TAG,
    /** Active messages with per-id handlers. */
    AM,
    /** Ordered byte streams per endpoint. */
    STREAM,
    /** One-sided put and get. */
    RMA,
    /** 32-bit remote atomics. */
    AMO32,
    /** 64-bit remote atomics. */
    AMO64,
    /** Blocking waits on an event fd ({@link Worker#waitForEvents}) instead of spinning. */
    WAKEUP
}
