package weft.tools.run;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Slurm's hostlist and per-node count syntax, and weft run's hosts inside an allocation. */
class SlurmHostsTest {
    @Test
    void shouldExpandHostlists() {
        assertEquals(List.of("node1", "node2", "node3", "node5"), SlurmHosts.expand("node[1-3,5]"));
        assertEquals(List.of("n01-ib", "n02-ib", "n10-ib"), SlurmHosts.expand("n[01-02,10]-ib"));
        assertEquals(List.of("r1n1", "r1n2", "r2n1", "r2n2"), SlurmHosts.expand("r[1-2]n[1-2]"));
        assertEquals(List.of("login", "cn7", "gpu008", "gpu009", "gpu010"),
            SlurmHosts.expand("login,cn[7],gpu[008-010]"));
        assertEquals(List.of("vm"), SlurmHosts.expand("vm"));
    }

    @Test
    void shouldRejectMalformedHostlists() {
        for (final String[] bad : new String[][] {{"node[1-3", "'[' without ']'"}, {"node]1", "']' without '['"},
            {"node[3-1]", "the range 3-1 runs backwards"}, {"node[a-b]", "'a-b' in brackets is not a number"},
            {"node[1-99999999]", "has more than 65536 names"}, {"n[[1]]", "nested '['"}, {",", "no host"}}) {
            final LaunchException e = assertThrows(LaunchException.class, () -> SlurmHosts.expand(bad[0]), bad[0]);
            assertTrue(e.getMessage().startsWith("invalid SLURM_JOB_NODELIST='" + bad[0] + "': ")
                && e.getMessage().contains(bad[1]), e.getMessage());
        }
    }

    @Test
    void shouldExpandPerNodeCounts() {
        assertEquals(List.of(2, 2, 2, 1), SlurmHosts.counts("2(x3),1", "V"));
        assertEquals(List.of(4), SlurmHosts.counts("4", "V"));
        assertTrue(assertThrows(LaunchException.class, () -> SlurmHosts.counts("2x3", "SLURM_TASKS_PER_NODE"))
            .getMessage().contains("invalid SLURM_TASKS_PER_NODE='2x3': '2x3' is not N or N(xM)"));
        assertThrows(LaunchException.class, () -> SlurmHosts.counts("0", "V"));
    }

    @Test
    void shouldTakeTheAllocationsNodesAndSlots() {
        assertNull(SlurmHosts.fromEnvironment(Map.<String, String>of()::get));
        assertEquals(List.of(new HostList.Host("cn1", 2), new HostList.Host("cn2", 2), new HostList.Host("cn4", 1)),
            SlurmHosts.fromEnvironment(Map.of("SLURM_JOB_NODELIST", "cn[1-2,4]", "SLURM_TASKS_PER_NODE", "2(x2),1",
                "SLURM_JOB_CPUS_PER_NODE", "8(x3)")::get));
        assertEquals(List.of(new HostList.Host("cn1", 8), new HostList.Host("cn2", 8)),
            SlurmHosts.fromEnvironment(Map.of("SLURM_JOB_NODELIST", "cn[1-2]", "SLURM_JOB_CPUS_PER_NODE", "8(x2)")::get));
        assertEquals(List.of(new HostList.Host("cn1", 1)),
            SlurmHosts.fromEnvironment(Map.of("SLURM_JOB_NODELIST", "cn1")::get));
        assertTrue(assertThrows(LaunchException.class, () -> SlurmHosts.fromEnvironment(Map.of("SLURM_JOB_NODELIST",
            "cn[1-3]", "SLURM_TASKS_PER_NODE", "2(x2)")::get)).getMessage().contains("SLURM_TASKS_PER_NODE='2(x2)' "
            + "gives 2 count(s) for the 3 node(s) of SLURM_JOB_NODELIST='cn[1-3]'"));
    }

    @Test
    void shouldPlacePesOnTheAllocationUnlessHostsAreGiven() {
        final Map<String, String> alloc = Map.of("SLURM_JOB_ID", "5", "SLURM_JOB_NODELIST", "cn[1-2]",
            "SLURM_TASKS_PER_NODE", "2(x2)");
        final RunCommand cmd = new RunCommand();
        cmd.env = alloc::get;
        new picocli.CommandLine(cmd).parseArgs("-n", "4", "--agent", "true", "Main");
        assertEquals(List.of("cn1", "cn1", "cn2", "cn2"), cmd.spec().placements().stream()
            .map(HostList.Placement::host).toList());
        final RunCommand explicit = new RunCommand();
        explicit.env = alloc::get;
        new picocli.CommandLine(explicit).parseArgs("-n", "2", "-H", "localhost:2", "Main");
        assertEquals(List.of("localhost", "localhost"), explicit.spec().placements().stream()
            .map(HostList.Placement::host).toList());
        final RunCommand tooMany = new RunCommand();
        tooMany.env = alloc::get;
        new picocli.CommandLine(tooMany).parseArgs("-n", "5", "--agent", "true", "Main");
        assertTrue(assertThrows(LaunchException.class, tooMany::spec).getMessage()
            .contains("5 PEs requested but the hosts have only 4 slot(s) (cn1:2,cn2:2)"));
    }
}
