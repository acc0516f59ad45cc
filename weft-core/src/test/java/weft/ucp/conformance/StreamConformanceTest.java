package weft.ucp.conformance;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.util.List;

/** Streams over every transport set, in one JVM and across processes. */
@Timeout(300) // a bound for a hang: the scenarios' own step waits (Pe.WAIT_SECONDS) report a stuck step first
class StreamConformanceTest {
    /** The JDK keeps /dev/random open after its first temp file: open it before the first fd snapshot. */
    @BeforeAll
    static void warmTempFiles() throws Exception {
        Files.delete(Files.createTempFile("weft-warm-", ".tmp"));
    }

    static List<Arguments> sets() {
        return TagConformanceTest.sets();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void partialAndWaitAllReceivesKeepByteOrder(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(StreamScenarios.PartialAndWaitAll.class, tls, mode, 60);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void zeroCopyReceiveViewsAndRelease(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(StreamScenarios.ZeroCopyReceive.class, tls, mode, 90);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void gatherSendsAndScatterReceives(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(StreamScenarios.Iov.class, tls, mode, 90);
    }
}
