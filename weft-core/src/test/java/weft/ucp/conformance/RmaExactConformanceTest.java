package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exact one-sided semantics ({@link RmaExactScenarios}) over every transport set, in one JVM and
 * across processes.
 */
@Timeout(300) // a bound for a hang: the scenarios' own step waits (Pe.WAIT_SECONDS) report a stuck step first
class RmaExactConformanceTest {
    static java.util.List<org.junit.jupiter.params.provider.Arguments> sets() {
        return TagConformanceTest.sets();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void putFencePutAndFlush(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(RmaExactScenarios.FenceAndFlush.class, tls, mode, 90);
    }

    // 2 x 2000 iterations of ~14 round trips each, which over emulated atomics in one JVM need the other PE's
    // thread to run: with both cores taken by other work (CFS slices of a few ms) that took over 90 s once,
    // so the hang bound leaves room for it
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    @Timeout(300)
    void atomicsContention(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(RmaExactScenarios.AtomicContention.class, tls, mode, 270);
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
