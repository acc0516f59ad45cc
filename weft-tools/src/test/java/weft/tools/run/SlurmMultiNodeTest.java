package weft.tools.run;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Weft jobs across two Slurm nodes: {@code .ci/slurm-local.sh up DIR 2} makes each node a network
 * namespace of this machine with its own slurmd (n1, n2), joined to this machine and to each other by
 * veth pairs. Two PEs per node: the PEs of a node talk over shm, the nodes over tcp on their direct link;
 * the node layout comes from the bootstrap (PMI-2's process mapping, PMIx's keys, or weft run's hosts
 * from {@code SLURM_JOB_NODELIST}, started on the other node through {@code srun} as the agent). Skipped,
 * with the reason, without Slurm, root or network namespaces.
 */
@Timeout(120)
class SlurmMultiNodeTest extends SlurmClusterFixture {
    private static final List<String> TWO_BY_TWO = List.of("-N", "2", "--ntasks-per-node=2");

    @Override
    int nodes() {
        return 2;
    }

    /** Every rank's line of LaunchTestPe's exchange: its place, and the lanes of its ring endpoint to rank + 1. */
    private static void checkRingAcrossTwoNodes(final LocalSlurm.Result r, final String prefix, final String bootstrap) {
        final String[] netns = new String[4];
        for (int rank = 0; rank < 4; rank++) {
            final String start = prefix.replace("R", Integer.toString(rank)) + "rank " + rank + "/4 local " + (rank % 2)
                + "/2 node " + (rank / 2) + " bootstrap " + bootstrap + " ";
            final int i = r.out().indexOf(start);
            assertTrue(i >= 0, "no line for rank " + rank + ": " + r);
            final String line = r.out().substring(i, r.out().indexOf('\n', i));
            netns[rank] = line.replaceAll(".* netns (\\S+) .*", "$1");
            final String lanes = line.replaceAll(".* lanes (\\S+) .*", "$1");
            // 0->1 and 2->3 stay on their node; 1->2 and 3->0 cross to the other node, over tcp
            assertTrue(rank % 2 == 0 ? lanes.startsWith("lane0:shm/") : lanes.startsWith("lane0:tcp/"), line);
            assertTrue(line.endsWith(" ring 0,1,2,3"), line);
        }
        assertEquals(netns[0], netns[1], r.toString());
        assertEquals(netns[2], netns[3], r.toString());
        assertNotEquals(netns[0], netns[2], r.toString());
    }

    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix"})
    void shouldPassARingAcrossNodes(final String mpi) throws Exception {
        assumeMpi(mpi);
        final LocalSlurm.Result r = slurm.srunJava(names, mpi, TWO_BY_TWO, Map.of(), LaunchTestPe.class.getName(),
            "exchange", pidDir.toString());
        assertEquals(0, r.rc(), r.toString());
        checkRingAcrossTwoNodes(r, "", mpi);
    }

    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix"})
    void shouldPutGetAndUpdateAtomicallyAcrossNodes(final String mpi) throws Exception {
        assumeMpi(mpi);
        final LocalSlurm.Result r = slurm.srunJava(names, mpi, TWO_BY_TWO, Map.of(), RmaScenarioPe.class.getName(),
            pidDir.toString());
        assertEquals(0, r.rc(), r.toString());
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(r.out().contains("rma ok " + rank + "/4 via " + mpi), "rank " + rank + ": " + r);
        }
    }

    /** Ranks 2 and 3 (the second node) die of an exception; the first node's PEs are stopped too. */
    @ParameterizedTest(name = "--mpi={0}")
    @ValueSource(strings = {"pmi2", "pmix"})
    void shouldEndTheStepOnEveryNodeWhenAPeFails(final String mpi) throws Exception {
        assumeMpi(mpi);
        final LocalSlurm.Result r = slurm.srunJava(names, mpi, TWO_BY_TWO, Map.of(), EXAMPLE.toString());
        assertNotEquals(0, r.rc(), r.toString());
        assertTrue(r.out().contains("aborts the job through the " + mpi + " bootstrap"), r.toString());
        assertTrue(r.out().matches("(?s).*srun: error: n1: tasks? [0-9,-]*: Killed.*"), "node 1's tasks: " + r);
        assertTrue(r.millis() < 30_000, "the step took " + r.millis() + " ms: " + r);
    }

    @Test
    void shouldRunWeftRunAcrossTheNodesOfAnAllocation() throws Exception {
        final String name = LocalSlurm.newName();
        names.add(name);
        final List<String> cmd = new ArrayList<>(List.of("salloc", "-N", "2", "--ntasks-per-node=2", "--time=2",
            "--job-name=" + name, ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            "weft.tools.Main", "run", "-n", "4", "--tag-output", "--agent", "srun --overlap -N1 -n1 -w",
            "--bootstrap-address", slurm.controllerAddress(), "-J", "-XX:TieredStopAtLevel=1",
            LaunchTestPe.class.getName(), "exchange", pidDir.toString()));
        final LocalSlurm.Result r = slurm.run(name, cmd, Map.of(), 100);
        assertEquals(0, r.rc(), r.toString());
        checkRingAcrossTwoNodes(r, "[R] ", "launcher");
    }
}
