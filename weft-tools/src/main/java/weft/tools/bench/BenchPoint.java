package weft.tools.bench;

/**
 * One measurement of the suite: a perftest test at one message size over one transport set, run
 * on both Weft and (when installed) UCX with the same iteration counts.
 *
 * @param transport  the transport set ("shm" or "tcp")
 * @param test       the perftest test name, as ucx_perftest spells it
 * @param size       message size in bytes
 * @param metric     the figure compared
 * @param iterations measured iterations
 * @param warmup     warm-up iterations
 * @param ucxTest    the test run on the UCX side (usually {@code test}; another where UCX's own figure for
 *                   {@code test} is a known artefact of its tool: tcp ucp_get, tcp ucp_put_bw)
 * @param ucxFactor  the UCX figure is multiplied by this before the ratio (2 = "one round trip" of a
 *                   one-way latency)
 * @param cold       a short run (--cold): Weft's server and client are JVMs started for this point alone
 */
record BenchPoint(String transport, String test, long size, Metric metric, long iterations, long warmup,
                  String ucxTest, double ucxFactor, boolean cold) {
    /** A point of the steady-state suite (JVMs kept warm across points). */
    BenchPoint(final String transport, final String test, final long size, final Metric metric, final long iterations,
               final long warmup, final String ucxTest, final double ucxFactor) {
        this(transport, test, size, metric, iterations, warmup, ucxTest, ucxFactor, false);
    }

    /** True when the UCX side runs something other than the same test. */
    boolean proxyAnchor() {
        return !ucxTest.equals(test) || ucxFactor != 1.0;
    }

    /** How the UCX anchor is formed, for the table and CSV ("" when it is the same test). */
    String anchorNote() {
        if (!proxyAnchor()) {
            return "";
        }
        return (ucxFactor != 1.0 ? fmt(ucxFactor) + "x " : "") + "ucx " + ucxTest;
    }

    private static String fmt(final double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    /** "8 B", "4 KiB", "1 MiB". */
    static String sizeLabel(final long size) {
        if (size >= (1 << 20) && size % (1 << 20) == 0) {
            return size / (1 << 20) + " MiB";
        }
        if (size >= 1024 && size % 1024 == 0) {
            return size / 1024 + " KiB";
        }
        return size + " B";
    }
}
