package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** One-sided operations over every transport set, in one JVM and across processes. */
@Timeout(300) // a bound for a hang: the scenarios' own step waits (Pe.WAIT_SECONDS) report a stuck step first
class RmaConformanceTest {
    static java.util.List<org.junit.jupiter.params.provider.Arguments> sets() {
        return TagConformanceTest.sets();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void putGetAtomics(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(RmaScenarios.PutGetAtomics.class, tls, mode, 60);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void badKeys(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(RmaScenarios.BadKeys.class, tls, mode, 60);
    }
}
