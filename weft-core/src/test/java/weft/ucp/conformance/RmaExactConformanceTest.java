package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exact one-sided semantics ({@link RmaExactScenarios}) over every transport set, in one JVM and
 * across processes.
 */
@Timeout(120)
class RmaExactConformanceTest {
    static java.util.List<org.junit.jupiter.params.provider.Arguments> sets() {
        return TagConformanceTest.sets();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void putFencePutAndFlush(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(RmaExactScenarios.FenceAndFlush.class, tls, mode, 90);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void atomicsContention(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(RmaExactScenarios.AtomicContention.class, tls, mode, 90);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void sizesAlignmentsIovHeapBuffers(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(RmaExactScenarios.SizesAlignmentsIov.class, tls, mode, 90);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void outOfRangeClosedKeyUseAfterUnmap(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(RmaExactScenarios.Failures.class, tls, mode, 90);
    }
}
