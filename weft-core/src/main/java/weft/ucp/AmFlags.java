package weft.ucp;

/**
 * Flags for active messages: send flags for {@link Endpoint#sendAm} and handler flags for
 * {@link Worker#setAmHandler}.
 */
public final class AmFlags {
    /** Send: give the receiver's handler an endpoint back to the sender ({@link AmMessage#replyEndpoint()}). */
    public static final int SEND_REPLY = 1;
    /** Send: use an eager protocol whatever the size (the receiver buffers the message). */
    public static final int SEND_EAGER = 1 << 1;
    /** Send: use rendezvous whatever the size (the receiver decides where the data goes). */
    public static final int SEND_RNDV = 1 << 2;

    /**
     * Handler: eager data handed to the handler is always in memory that outlives the call (copied out of
     * the transport first when needed), so a handler that keeps it reads it at the same place later.
     */
    public static final int HANDLER_PERSISTENT_DATA = 1;

    static final int SEND_ALL = SEND_REPLY | SEND_EAGER | SEND_RNDV;
    static final int HANDLER_ALL = HANDLER_PERSISTENT_DATA;

    private AmFlags() {
    }
}
