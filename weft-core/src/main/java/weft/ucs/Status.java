package weft.ucs;

/**
 * Outcome of an operation, mirroring UCT's contract.
 *
 * <ul>
 *   <li>{@link #OK}: done now; buffers may be reused.</li>
 *   <li>{@link #IN_PROGRESS}: accepted; a {@code Completion} fires later from progress.</li>
 *   <li>{@link #NO_RESOURCE}: nothing happened; retry, or queue a pending request.</li>
 *   <li>{@link #BUSY}: the caller asked to wait (pending add, arm) but events are ready now.</li>
 *   <li>everything else is an error ({@link #isError()}).</li>
 * </ul>
 *
 * The data path returns these values (an enum constant: no allocation); exceptions
 * ({@link WeftException}) are for setup and misuse.
 */
public enum Status {
    OK(0, "success"),
    IN_PROGRESS(1, "operation in progress"),
    NO_RESOURCE(-2, "no resources are available to initiate the operation"),
    BUSY(-4, "device is busy"),
    NO_MESSAGE(-3, "no pending message"),
    IO_ERROR(-5, "input/output error"),
    NO_MEMORY(-6, "out of memory"),
    INVALID_PARAM(-7, "invalid parameter"),
    UNREACHABLE(-8, "destination is unreachable"),
    INVALID_ADDRESS(-9, "address not valid"),
    UNSUPPORTED(-10, "unsupported operation"),
    MESSAGE_TRUNCATED(-11, "message truncated"),
    NO_ELEMENT(-12, "no such element"),
    CANCELED(-16, "operation canceled"),
    BUFFER_TOO_SMALL(-17, "buffer too small"),
    ENDPOINT_TIMEOUT(-20, "endpoint timeout"),
    CONNECTION_RESET(-25, "connection reset by remote peer"),
    REJECTED(-27, "connection request rejected"),
    OUT_OF_RANGE(-28, "remote access out of the registered range"),
    INVALID_RKEY(-29, "invalid or foreign remote key"),
    CLOSED(-30, "object is closed"),
    TIMED_OUT(-31, "operation timed out");

    private static final Status[] BY_NEGATED_CODE = new Status[64];

    static {
        for (final Status s : values()) {
            if (s.code <= 0) {
                BY_NEGATED_CODE[-s.code] = s;
            }
        }
    }

    private final int code;
    private final String description;

    Status(final int code, final String description) {
        this.code = code;
        this.description = description;
    }

    /** Numeric code (0 = OK, 1 = IN_PROGRESS, negative = not done). Stable on the wire. */
    public int code() {
        return code;
    }

    public String description() {
        return description;
    }

    /** True for the error codes (not OK, IN_PROGRESS, NO_RESOURCE or BUSY). */
    public boolean isError() {
        return code < 0 && this != NO_RESOURCE && this != BUSY;
    }

    /** The status for a code produced by {@link #code()}; INVALID_PARAM for unknown codes. */
    public static Status of(final int code) {
        if (code == 1) {
            return IN_PROGRESS;
        }
        // compare as code > -length: negating Integer.MIN_VALUE would overflow to a negative index
        if (code <= 0 && code > -BY_NEGATED_CODE.length && BY_NEGATED_CODE[-code] != null) {
            return BY_NEGATED_CODE[-code];
        }
        return INVALID_PARAM;
    }

    /** Decodes a "length or negative status" value as returned by bcopy operations. */
    public static Status ofLength(final long lengthOrStatus) {
        if (lengthOrStatus >= 0) {
            return OK;
        }
        // a narrowing cast would turn e.g. -(2^32 - 1) into 1 (IN_PROGRESS): reject out-of-int values
        return lengthOrStatus < Integer.MIN_VALUE ? INVALID_PARAM : of((int) lengthOrStatus);
    }
}
