package weft.ucp.conformance;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Multi-rail one-sided operations over tcp, in one JVM and across processes. {@code WEFT_TCP_RAILS=2}
 * gives every endpoint two tcp rails to its peer whatever network interfaces the machine has (lo and
 * lo#1); {@link #stripingOverDevices} uses the machine's devices instead (lo and eth0 when present).
 */
@Timeout(300) // a bound for a hang: the scenarios' own step waits (Pe.WAIT_SECONDS) report a stuck step first
class MultiRailConformanceTest {
    private static final String[] PROPS = {"weft.tcp_rails", "weft.max_rma_rails", "weft.lane_policy",
        "weft.min_rma_chunk_size", "weft.rndv_scheme"};

    @AfterEach
    void clear() {
        for (final String p : PROPS) {
            System.clearProperty(p);
        }
    }

    private static void rails(final String policy) {
        System.setProperty("weft.tcp_rails", "2");
        System.setProperty("weft.max_rma_rails", "2");
        System.setProperty("weft.lane_policy", policy);
    }

    @ParameterizedTest
    @EnumSource(ScenarioRunner.Mode.class)
    void striping(final ScenarioRunner.Mode mode) throws Exception {
        rails("fixed");
        ScenarioRunner.run(MultiRailScenarios.Striping.class, "tcp,self", mode, 60);
    }

    @ParameterizedTest
    @EnumSource(ScenarioRunner.Mode.class)
    void stripingOverDevices(final ScenarioRunner.Mode mode) throws Exception {
        System.setProperty("weft.lane_policy", "fixed");
        ScenarioRunner.run(MultiRailScenarios.Striping.class, "tcp,self", mode, 60);
    }

    @ParameterizedTest
    @EnumSource(ScenarioRunner.Mode.class)
    void roundRobinAlternatesAndAtomicsStayOnOneLane(final ScenarioRunner.Mode mode) throws Exception {
        rails("rr");
        ScenarioRunner.run(MultiRailScenarios.RoundRobin.class, "tcp,self", mode, 60);
    }

    @ParameterizedTest
    @EnumSource(ScenarioRunner.Mode.class)
    void leastUsedPrefersTheIdleLane(final ScenarioRunner.Mode mode) throws Exception {
        rails("lu");
        System.setProperty("weft.min_rma_chunk_size", "1g"); // no striping: the large get loads one rail
        ScenarioRunner.run(MultiRailScenarios.LeastUsed.class, "tcp,self", mode, 60);
    }

    @ParameterizedTest
    @EnumSource(ScenarioRunner.Mode.class)
    void fenceOrdersPutsAcrossLanes(final ScenarioRunner.Mode mode) throws Exception {
        rails("rr");
        ScenarioRunner.run(MultiRailScenarios.FenceAcrossLanes.class, "tcp,self", mode, 60);
    }

    @ParameterizedTest
    @EnumSource(ScenarioRunner.Mode.class)
    void rendezvousOverAmStripedOverLanes(final ScenarioRunner.Mode mode) throws Exception {
        System.setProperty("weft.tcp_rails", "2");
        System.setProperty("weft.rndv_scheme", "am");
        ScenarioRunner.run(MultiRailScenarios.RendezvousOverAm.class, "tcp,self", mode, 60);
    }

    @ParameterizedTest
    @EnumSource(ScenarioRunner.Mode.class)
    void rendezvousByPutByDefaultStripedOverLanes(final ScenarioRunner.Mode mode) throws Exception {
        System.setProperty("weft.tcp_rails", "2");
        ScenarioRunner.run(MultiRailScenarios.RendezvousByPutByDefault.class, "tcp,self", mode, 60);
    }
}
