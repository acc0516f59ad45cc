package weft.tools.perftest;

import java.util.Locale;

/**
 * The transport-level tests of {@code weft perftest}: the same names, descriptions and
 * measurement conventions as ucx_perftest's UCT tests.
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
    ADD_MR("add_mr", "atomic add message rate", Command.ADD, Type.STREAM);

    /** The operation a test issues. */
    public enum Command { AM, PUT, GET, ADD, FADD, SWAP, CSWAP }

    /** Ping-pong (both sides send, latency is half the round trip) or a one-way stream. */
    public enum Type { PINGPONG, STREAM }

    /** The protocol-level (UCP) test names of ucx_perftest: recognised, but not run by this tool. */
    static final java.util.List<String> UCP_TESTS = java.util.List.of("tag_lat", "tag_bw", "tag_sync_lat",
        "tag_sync_bw", "ucp_put_lat", "ucp_put_bw", "ucp_get", "ucp_add", "ucp_fadd", "ucp_swap", "ucp_cswap",
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
        return this == AM_BW || this == PUT_BW || this == ADD_MR ? "overhead" : "latency";
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
            throw new IllegalArgumentException("test '" + name + "' is a UCP (protocol layer) test; weft perftest "
                + "runs the transport-level tests only for now: " + names());
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
