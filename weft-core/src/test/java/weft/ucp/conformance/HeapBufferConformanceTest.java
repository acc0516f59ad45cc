package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

/** Java-heap buffers on the rendezvous paths over every transport set, in one JVM and across processes. */
@Timeout(300) // a bound for a hang: the scenarios' own step waits (Pe.WAIT_SECONDS) report a stuck step first
class HeapBufferConformanceTest {
    static List<Arguments> sets() {
        return TagConformanceTest.sets();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void heapSendsAndReceivesAboveTheRendezvousThreshold(final String tls, final ScenarioRunner.Mode mode)
        throws Exception {
        ScenarioRunner.run(HeapBufferScenarios.Rendezvous.class, tls, mode, 90);
    }
}
