package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;

/** Tag matching over every transport set, in one JVM and across processes. */
@Timeout(120)
class TagConformanceTest {
    static List<Arguments> sets() {
        final List<Arguments> l = new ArrayList<>();
        for (final String tls : ScenarioRunner.TRANSPORT_SETS) {
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
        ScenarioRunner.run(TagScenarios.Datatypes.class, tls, mode, 60);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void backpressure(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        System.setProperty("weft.unexpected_budget", Long.toString(TagScenarios.Backpressure.BUDGET));
        try {
            ScenarioRunner.run(TagScenarios.Backpressure.class, tls, mode, 60);
        } finally {
            System.clearProperty("weft.unexpected_budget");
        }
    }

    @ParameterizedTest(name = "tcp,self {0}")
    @org.junit.jupiter.params.provider.EnumSource(ScenarioRunner.Mode.class)
    void rendezvousGetStripedOverTcpLanes(final ScenarioRunner.Mode mode) throws Exception {
        System.setProperty("weft.rndv_scheme", "get");
        try {
            ScenarioRunner.run(TagScenarios.StripedGet.class, "tcp,self", mode, 60);
        } finally {
            System.clearProperty("weft.rndv_scheme");
        }
    }
}
