package weft.ucp.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

/**
 * Put/get on registered memory ({@link SoftRmaScenarios}): emulated over active messages under
 * {@code shm,self} (what {@code WEFT_TLS=shm,^cma} selects), by lanes over tcp and the default set; in one JVM and
 * across processes.
 */
@Timeout(120)
class SoftRmaConformanceTest {
    static List<Arguments> sets() {
        return TagConformanceTest.sets(List.of("shm,self", "tcp,self", "shm,cma,self,tcp"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void registeredMemoryPutGet(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(SoftRmaScenarios.RegisteredPutGet.class, tls, mode, 90);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sets")
    void unreachableNamesTheLanes(final String tls, final ScenarioRunner.Mode mode) throws Exception {
        ScenarioRunner.run(SoftRmaScenarios.UnreachableNamesLanes.class, tls, mode, 60);
    }
}
