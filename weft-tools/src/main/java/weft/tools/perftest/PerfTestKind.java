package weft.tools.perftest;

import java.util.Locale;

/**
 * The tests of {@code weft perftest}: the same names, descriptions and measurement conventions as
 * ucx_perftest's UCT (transport layer) and UCP (protocol layer) tests.
 */
public enum PerfTestKind {
    AM_LAT("am_lat", "active message latency", Command.AM, Type.PINGPONG, false),
    PUT_LAT("put_lat", "put latency", Command.PUT, Type.PINGPONG, false),
    ADD_LAT("add_lat", "atomic add latency", Command.ADD, Type.PINGPONG, false),
    GET("get", "get latency / bandwidth / message rate", Command.GET, Type.STREAM, false),
    FADD("fadd", "atomic fetch-and-add latency / rate", Command.FADD, Type.STREAM, false),
    SWAP("swap", "atomic swap latency / rate", Command.SWAP, Type.STREAM, false),
    CSWAP("cswap", "atomic compare-and-swap latency / rate", Command.CSWAP, Type.STREAM, false),
    AM_BW("am_bw", "active message bandwidth / message rate", Command.AM, Type.STREAM, false),
    PUT_BW("put_bw", "put bandwidth / message rate", Command.PUT, Type.STREAM, false),
    ADD_MR("add_mr", "atomic add message rate", Command.ADD, Type.STREAM, false),
    TAG_LAT("tag_lat", "tag match latency", Command.TAG, Type.PINGPONG, true),
    TAG_BW("tag_bw", "tag match bandwidth", Command.TAG, Type.STREAM, true),
    TAG_SYNC_LAT("tag_sync_lat", "tag sync match latency", Command.TAG_SYNC, Type.PINGPONG, true),
    TAG_SYNC_BW("tag_sync_bw", "tag sync match bandwidth", Command.TAG_SYNC, Type.STREAM, true),
    UCP_PUT_LAT("ucp_put_lat", "put latency", Command.PUT, Type.PINGPONG, true),
    UCP_PUT_BW("ucp_put_bw", "put bandwidth", Command.PUT, Type.STREAM, true),
    UCP_GET("ucp_get", "get latency / bandwidth / message rate", Command.GET, Type.STREAM, true),
    UCP_ADD("ucp_add", "atomic add bandwidth / message rate", Command.ADD, Type.STREAM, true),
    UCP_FADD("ucp_fadd", "atomic fetch-and-add latency / bandwidth / rate", Command.FADD, Type.STREAM, true),
    UCP_SWAP("ucp_swap", "atomic swap latency / bandwidth / rate", Command.SWAP, Type.STREAM, true),
    UCP_CSWAP("ucp_cswap", "atomic compare-and-swap latency / bandwidth / rate", Command.CSWAP, Type.STREAM, true),
    STREAM_BW("stream_bw", "stream bandwidth", Command.STREAM, Type.STREAM, true),
    STREAM_LAT("stream_lat", "stream latency", Command.STREAM, Type.PINGPONG, true),
    UCP_AM_LAT("ucp_am_lat", "am latency", Command.UCP_AM, Type.PINGPONG, true),
    UCP_AM_BW("ucp_am_bw", "am bandwidth / message rate", Command.UCP_AM, Type.STREAM, true);

    /**
     * The operation a test issues. TAG, TAG_SYNC, STREAM and UCP_AM exist at the protocol layer only,
     * AM at the transport layer only; the one-sided ones at both (see {@link #isUcp()}).
     */
    public enum Command { AM, PUT, GET, ADD, FADD, SWAP, CSWAP, TAG, TAG_SYNC, STREAM, UCP_AM }

    /** Ping-pong (both sides send, latency is half the round trip) or a one-way stream. */
    public enum Type { PINGPONG, STREAM }

    private final String testName;
    private final String description;
    private final Command command;
    private final Type type;
    private final boolean ucp;

    PerfTestKind(final String testName, final String description, final Command command, final Type type,
                 final boolean ucp) {
        this.testName = testName;
        this.description = description;
        this.command = command;
        this.type = type;
        this.ucp = ucp;
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
        return switch (this) {
            case AM_BW, PUT_BW, ADD_MR, TAG_BW, TAG_SYNC_BW, UCP_PUT_BW, UCP_ADD, STREAM_BW, UCP_AM_BW -> "overhead";
            default -> "latency";
        };
    }

    /**
     * The window when -O is 0. ucx_perftest's own table gives 32 to tag_bw, tag_sync_bw, ucp_put_bw
     * and ucp_am_bw, and weft follows it there (so a side-by-side run keeps the same number of receives
     * posted and puts between flushes). ucx_perftest gives 1 to the other tests; weft keeps
     * {@link PerfParams#DEFAULT_OUTSTANDING} for them: where it matters (zero-copy sends, tcp puts and
     * atomic posts) a weft operation counts as outstanding until its completion or a flush, where
     * ucx_perftest counts only requests the library returned, so 1 would make weft wait for every one.
     */
    public int defaultOutstanding() {
        return switch (this) {
            case TAG_BW, TAG_SYNC_BW, UCP_PUT_BW, UCP_AM_BW -> 32;
            default -> PerfParams.DEFAULT_OUTSTANDING;
        };
    }

    /** True for protocol-layer tests (run on weft.ucp workers and endpoints, not on one interface). */
    public boolean isUcp() {
        return ucp;
    }

    /** True for protocol-layer one-sided tests (put, get, atomics on a peer's mapped memory). */
    public boolean isUcpRma() {
        return ucp && !isTwoSided();
    }

    /** True for tests where the peer receives every message (tag, stream, active messages). */
    public boolean isTwoSided() {
        return command == Command.AM || command == Command.TAG || command == Command.TAG_SYNC
            || command == Command.STREAM || command == Command.UCP_AM;
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
