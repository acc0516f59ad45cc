package weft.uct;

/**
 * Interface capability flags ({@link InterfaceAttributes#flags()}), the UCT set that Weft uses.
 * Protocols and tests decide by these bits, never by transport name.
 */
public final class Capability {
    public static final long AM_SHORT = 1L << 0;
    public static final long AM_BCOPY = 1L << 1;
    public static final long AM_ZCOPY = 1L << 2;
    /** The endpoint supports {@link Endpoint#pendingAdd}. */
    public static final long PENDING = 1L << 3;
    public static final long PUT_SHORT = 1L << 4;
    public static final long PUT_BCOPY = 1L << 5;
    public static final long PUT_ZCOPY = 1L << 6;
    public static final long GET_SHORT = 1L << 8;
    public static final long GET_BCOPY = 1L << 9;
    public static final long GET_ZCOPY = 1L << 10;
    /** 32-bit atomics (see {@link InterfaceAttributes#atomic32Ops()}). */
    public static final long ATOMIC32 = 1L << 11;
    /** 64-bit atomics (see {@link InterfaceAttributes#atomic64Ops()}). */
    public static final long ATOMIC64 = 1L << 12;
    /** {@link Endpoint#putShortSignal}: a short put and the signal after it in one transport operation. */
    public static final long PUT_SIGNAL = 1L << 13;
    /** Atomics are coherent with CPU atomics of the target process on the same word. */
    public static final long ATOMIC_CPU = 1L << 30;
    /** A dead peer is reported as an error on the endpoint (never a crash or a hang). */
    public static final long ERRHANDLE_PEER_FAILURE = 1L << 38;
    /** {@link Endpoint#check} probes liveness. */
    public static final long EP_CHECK = 1L << 39;
    /** Endpoints are created from the remote device + interface address alone. */
    public static final long CONNECT_TO_IFACE = 1L << 40;
    /** AM callbacks are invoked only from {@link Interface#progress()}. */
    public static final long CB_SYNC = 1L << 44;
    /** The transport keeps connections alive and detects silent peers itself. */
    public static final long EP_KEEPALIVE = 1L << 46;
    /** Reaches peers on other nodes. */
    public static final long INTER_NODE = 1L << 54;
    /** The interface can sleep on an event fd ({@link Interface#arm()}, {@link Interface#eventFd()}). */
    public static final long EVENT_RECV = 1L << 56;

    private Capability() {
    }

    /** True if every bit of {@code required} is in {@code flags}. */
    public static boolean has(final long flags, final long required) {
        return (flags & required) == required;
    }

    /** Names of the set bits, for tools. */
    public static String describe(final long flags) {
        final StringBuilder sb = new StringBuilder();
        for (final java.lang.reflect.Field f : Capability.class.getFields()) {
            if (f.getType() == long.class) {
                try {
                    final long bit = f.getLong(null);
                    if ((flags & bit) != 0) {
                        sb.append(sb.isEmpty() ? "" : ",").append(f.getName().toLowerCase());
                    }
                } catch (final IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return sb.toString();
    }
}
