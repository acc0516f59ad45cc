package weft.ucp;

/** How {@link Endpoint#closeNonBlocking(CloseMode)} treats operations still outstanding. */
public enum CloseMode {
    /** Let queued and in-flight operations finish (bounded by {@code WEFT_EP_CLOSE_TIMEOUT}), then close. */
    FLUSH,
    /** Close now: outstanding operations complete with {@link weft.ucs.Status#CANCELED}. */
    FORCE
}
