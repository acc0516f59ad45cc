package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;

/** Tag matching over every transport set, in one JVM and across processes. */
@Timeout(300) // a bound for a hang: the scenarios' own step waits (Pe.WAIT_SECONDS) report a stuck step first
class TagConformanceTest {
    static List<Arguments> sets() {
        return sets(ScenarioRunner.TRANSPORT_SETS);
    }

    /** Every transport set of {@code sets} in every mode (one JVM, across processes). */
    static List<Arguments> sets(final List<String> sets) {
        final List<Arguments> l = new ArrayList<>();
        for (final String tls : sets) {
            for (final ScenarioRunner.Mode m : ScenarioRunner.Mode.values()) {
                l.add(Arguments.of(tls, m));
            }
        }
        return l;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void sizesAroundEveryThreshold(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(TagScenarios.Thresholds.class, tls, mode, 60);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void rendezvousByPut(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        withScheme("put", TagScenarios.RendezvousByPut.class, tls, mode, 90);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void rendezvousByActiveMessages(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        // tcp's default is put: keep the streamed (RTR + RNDV_DATA) path covered on every transport
        withScheme("am", TagScenarios.RendezvousByAm.class, tls, mode, 90);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void eagerGetPoolExhaustionOrderingTruncation(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        System.setProperty("weft.eager_get_pool", "128k");
        try {
            ScenarioRunner.run(TagScenarios.EagerGetPool.class, tls, mode, 90);
        } finally {
            System.clearProperty("weft.eager_get_pool");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void matchingOrderingProbeCancelCallbacks(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(TagScenarios.Matching.class, tls, mode, 60);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void syncTruncationUnexpected(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(TagScenarios.SyncTruncationUnexpected.class, tls, mode, 60);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void datatypes(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(TagDatatypeScenarios.Datatypes.class, tls, mode, 60);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void backpressure(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        System.setProperty("weft.unexpected_budget", Long.toString(TagScenarios.Backpressure.BUDGET));
        // bound what tcp can have in flight when STOP lands: the kernel's autotuning may grow a receive
        // buffer to net.ipv4.tcp_rmem's maximum (32 MiB on some machines: a whole flood, seen here)
        System.setProperty("weft.tcp_sndbuf", "256k");
        System.setProperty("weft.tcp_rcvbuf", "256k");
        try {
            ScenarioRunner.run(TagScenarios.Backpressure.class, tls, mode, 60);
        } finally {
            System.clearProperty("weft.unexpected_budget");
            System.clearProperty("weft.tcp_sndbuf");
            System.clearProperty("weft.tcp_rcvbuf");
        }
    }

    @ParameterizedTest(name = "tcp,self {0}")
    @org.junit.jupiter.params.provider.EnumSource(ScenarioRunner.Mode.class)
    void rendezvousGetStripedOverTcpLanes(final ScenarioRunner.Mode mode) throws Exception {
        withScheme("get", TagScenarios.StripedGet.class, "tcp,self", mode, 60);
    }

    /** Runs {@code scenario} with {@code WEFT_RNDV_SCHEME=scheme} (as a property the peer processes inherit). */
    private static void withScheme(final String scheme, final Class<? extends Scenario> scenario, final String tls,
                                   final ScenarioRunner.Mode mode, final int timeoutSeconds) throws Exception {
        System.setProperty("weft.rndv_scheme", scheme);
        try {
            ScenarioRunner.run(scenario, tls, mode, timeoutSeconds);
        } finally {
            System.clearProperty("weft.rndv_scheme");
        }
    }
}
