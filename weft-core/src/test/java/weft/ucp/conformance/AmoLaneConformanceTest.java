package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

/**
 * The atomic lane of a key ({@link AmoLaneScenarios}) over transport sets with tcp beside the same-node
 * transports (the default on one node), in one JVM (two workers of one process) and across processes.
 */
@Timeout(300) // a bound for a hang: the scenarios' own step waits (Pe.WAIT_SECONDS) report a stuck step first
class AmoLaneConformanceTest {
    static List<Arguments> sets() {
        return TagConformanceTest.sets(List.of("shm,cma,self,tcp", "shm,self,tcp", "tcp,self"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void atomicsStayOnTheNodeAndAreExact(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(AmoLaneScenarios.SameNodeFirst.class, tls, mode, 90);
    }
}
