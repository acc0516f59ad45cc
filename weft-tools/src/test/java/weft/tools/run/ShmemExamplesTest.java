package weft.tools.run;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import weft.ucs.config.Config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The OpenSHMEM examples of {@code examples/} as single-file programs under the launcher, as the README runs
 * them ({@code ./weft run -n 4 examples/ShmemHello.java}): weft-shmem is on the launcher's class path. With
 * them, MPI and OpenSHMEM in one program on one shared worker ({@code MpiAndShmem}).
 */
@Timeout(300)
class ShmemExamplesTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "ShmemHello|Hello from PE 3 of 4: my left neighbour wrote 2",
        "ShmemRing|ring of 4 PEs, 10 laps: every element is 60 (expected 60)",
        "ShmemCounter|4 PEs took 4000 tickets; their sum 7998000 (expected 7998000)",
        "ShmemReduce|sum of 1..1000000 over 4 PEs = 500000500000 (expected 500000500000)",
        "MpiAndShmem|MPI and OpenSHMEM on 4 ranks: sum of the words put 6, sum of ranks after shmem's finalize 6 "
            + "(expected 6 both)",
        "MpiAndShmem shmem-first|MPI and OpenSHMEM on 4 ranks: sum of the words put 6, after MPI's finalize 6 "
            + "(expected 6 both)"})
    void runsUnderTheLauncher(final String nameAndArgs, final String expected) {
        final String[] words = nameAndArgs.split(" ");
        final Path example = Path.of("..", "examples", words[0] + ".java").toAbsolutePath();
        Assumptions.assumeTrue(Files.exists(example), "no " + example);
        final List<String> a = new ArrayList<>(LaunchTest.FAST_JVM);
        a.addAll(List.of("-n", "4", "-x", "SHMEM_SYMMETRIC_SIZE=16m", example.toString()));
        a.addAll(List.of(words).subList(1, words.length));
        final LaunchTest.Job job = LaunchTest.run(Config.global().with("RUN_KILL_GRACE", "500ms")
            .with("BOOTSTRAP_TIMEOUT", "120s"), a);
        assertEquals(0, job.rc(), job.toString());
        assertTrue(job.out().contains(expected), job.toString());
    }
}
