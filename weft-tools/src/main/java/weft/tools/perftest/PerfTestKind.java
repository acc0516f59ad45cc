package weft.tools.perftest;

import java.util.Locale;

/**
 * The tests of {@code weft perftest}: the same names, descriptions and measurement conventions as
 * ucx_perftest's UCT (transport layer) and UCP (protocol layer) tests.
 */
public enum PerfTestKind {
    AM_LAT("am_lat", "active message latency", Command.AM, Type.PINGPONG),
    PUT_LAT("put_lat", "put latency", Command.PUT, Type.PINGPONG),
    ADD_LAT("add_lat", "atomic add latency", Command.ADD, Type.PINGPONG),
    GET("get", "get latency / bandwidth / message rate", Command.GET, Type.STREAM),
    FADD("fadd", "atomic fetch-and-add latency / rate", Command.FADD, Type.STREAM),
    SWAP("swap", "atomic swap latency / rate", Command.SWAP, Type.STREAM),
    CSWAP("cswap", "atomic compare-and-swap latency / rate", Command.CSWAP, Type.STREAM),
    AM_BW("am_bw", "active message bandwidth / message rate", Command.AM, Type.STREAM),
    PUT_BW("put_bw", "put bandwidth / message rate", Command.PUT, Type.STREAM),
    ADD_MR("add_mr", "atomic add message rate", Command.ADD, Type.STREAM),
    TAG_LAT("tag_lat", "tag match latency", Command.TAG, Type.PINGPONG),
    TAG_BW("tag_bw", "tag match bandwidth", Command.TAG, Type.STREAM),
    TAG_SYNC_LAT("tag_sync_lat", "tag sync match latency", Command.TAG_SYNC, Type.PINGPONG),
    TAG_SYNC_BW("tag_sync_bw", "tag sync match bandwidth", Command.TAG_SYNC, Type.STREAM);
    // TODO(ucp am/stream): STREAM_LAT("stream_lat", "stream latency"), STREAM_BW("stream_bw", "stream bandwidth"),
    // UCP_AM_LAT("ucp_am_lat", "am latency"), UCP_AM_BW("ucp_am_bw", "am bandwidth / message rate"): add them
    // here with Command.STREAM / Command.UCP_AM, remove them from UCP_TESTS, and add their messaging to
    // UcpMessaging.of (one small class each, like UcpMessaging.Tag); the loops need no change.

    /** The operation a test issues (TAG and TAG_SYNC are protocol-layer, the others transport-level). */
    public enum Command { AM, PUT, GET, ADD, FADD, SWAP, CSWAP, TAG, TAG_SYNC }

    /** Ping-pong (both sides send, latency is half the round trip) or a one-way stream. */
    public enum Type { PINGPONG, STREAM }

    /** The protocol-level (UCP) test names of ucx_perftest that this tool recognises but does not run yet. */
    static final java.util.List<String> UCP_TESTS = java.util.List.of("ucp_put_lat", "ucp_put_bw", "ucp_get", "ucp_add", "ucp_fadd", "ucp_swap", "ucp_cswap",
        "stream_bw", "stream_lat", "ucp_am_lat", "ucp_am_bw");

    private final String testName;
    private final String description;
    private final Command command;
    private final Type type;

    PerfTestKind(final String testName, final String description, final Command command, final Type type) {
        this.testName = testName;
        this.description = description;
        this.command = command;
        this.type = type;
    }

    /** The name given to {@code -t}. */
    public String testName() {
        return testName;
    }

    /** What the header box says on its "Test:" line. */
    public String description() {
        return description;
    }

    public Command command() {
        return command;
    }

    public Type type() {
        return type;
    }

    /** Ping-pong times cover a round trip; reported latency is one way, so divide by this. */
    public double factor() {
        return type == Type.PINGPONG ? 2.0 : 1.0;
    }

    /** "latency" for tests whose per-iteration time is an operation's full time, else "overhead". */
    public String timeColumn() {
        return this == AM_BW || this == PUT_BW || this == ADD_MR || this == TAG_BW || this == TAG_SYNC_BW
            ? "overhead" : "latency";
    }

    /** True for protocol-layer tests (run on weft.ucp workers and endpoints, not on one interface). */
    public boolean isUcp() {
        return command == Command.TAG || command == Command.TAG_SYNC;
    }

    /** True for tests whose operation is an atomic on a 32- or 64-bit word. */
    public boolean isAtomic() {
        return command == Command.ADD || command == Command.FADD || command == Command.SWAP
            || command == Command.CSWAP;
    }

    /**
     * The test called {@code name}.
     *
     * @throws IllegalArgumentException with a message saying what is accepted
     */
    public static PerfTestKind byName(final String name) {
        for (final PerfTestKind k : values()) {
            if (k.testName.equals(name)) {
                return k;
            }
        }
        if (UCP_TESTS.contains(name)) {
            throw new IllegalArgumentException("test '" + name + "' is a UCP (protocol layer) test that weft "
                + "perftest does not run yet; available: " + names());
        }
        throw new IllegalArgumentException("unknown test '" + name + "'; available: " + names());
    }

    /** The accepted test names, comma separated. */
    public static String names() {
        final StringBuilder sb = new StringBuilder();
        for (final PerfTestKind k : values()) {
            sb.append(sb.isEmpty() ? "" : ", ").append(k.testName);
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return testName.toLowerCase(Locale.ROOT);
    }
}
