package weft.tools.run;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import weft.ucs.config.Config;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /** PE 1 ends the job (global exit with a status, or SIGKILL to itself) while the others wait in a barrier. */
    private static final String ENDER = """
        import weft.shmem.Shmem;

        public class Ender {
            public static void main(String[] args) throws Exception {
                Shmem shmem = Shmem.init();
                shmem.barrierAll();
                if (shmem.myPe() == 1) {
                    if (args[0].equals("kill")) {
                        new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                        Thread.sleep(60_000);
                    }
                    shmem.globalExit(Integer.parseInt(args[0]));
                }
                shmem.barrierAll();
                System.out.println("PE " + shmem.myPe() + " passed a barrier without PE 1");
            }
        }
        """;

    @TempDir
    Path tmp;

    /**
     * {@code globalExit(status)} on one PE ends every PE, and {@code weft run} exits with that status, 0
     * included (an abort would make it 1); a PE killed with SIGKILL ends the job with 137, and no process
     * or shared-memory file of the job is left.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"0, 0", "3, 3", "kill, 137"})
    void globalExitAndAKilledPeEndTheJobWithTheirStatus(final String mode, final int rc) throws IOException {
        final Path program = Files.writeString(tmp.resolve("Ender.java"), ENDER);
        final List<String> a = new ArrayList<>(LaunchTest.FAST_JVM);
        a.addAll(List.of("-n", "3", "-x", "SHMEM_SYMMETRIC_SIZE=8m", program.toString(), mode));
        final LaunchTest.Job job = LaunchTest.run(Config.global().with("RUN_KILL_GRACE", "2s")
            .with("BOOTSTRAP_TIMEOUT", "120s"), a);
        assertEquals(rc, job.rc(), job.toString());
        assertFalse(job.out().contains("without PE 1"), job.toString());
        if (!mode.equals("kill")) {
            assertTrue(job.err().contains("every PE exits with status " + rc), job.toString());
        }
        try (DirectoryStream<Path> left = Files.newDirectoryStream(Path.of("/dev/shm"),
            "*" + job.launcher().jobId() + "*")) {
            assertFalse(left.iterator().hasNext(), "shared-memory files of the job are left: " + job);
        }
    }
}
