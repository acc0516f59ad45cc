package weft.tools.run;

import weft.tools.ParentWatch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import weft.ucs.config.Config;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code weft run} with real PE processes: jobs of 1..8 PEs, failures, timeouts and bad input. */
@Timeout(60)
class LaunchTest {
    /** Small, quick PE JVMs: the machine has two cores. */
    static final List<String> FAST_JVM = List.of("--jvm-option=-XX:TieredStopAtLevel=1",
        "--jvm-option=-XX:+UseSerialGC", "--jvm-option=-XX:-UsePerfData");

    @TempDir
    Path tmp;
    Path pidDir;

    /** One finished job: exit code, captured output, wall time and the launcher (for its processes). */
    record Job(int rc, String out, String err, long millis, JobLauncher launcher) {
        @Override
        public String toString() {
            return "rc=" + rc + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    @BeforeEach
    void pidDir() throws IOException {
        pidDir = Files.createDirectory(tmp.resolve("pids"));
    }

    @AfterEach
    void noProcessOutlivesItsJob() throws IOException {
        try (Stream<Path> s = Files.list(pidDir)) {
            for (final Path p : s.toList()) {
                final long pid = Long.parseLong(p.getFileName().toString());
                // A zombie (exited, not yet reaped by init) is dead.
                ProcessHandle.of(pid).filter(ParentWatch::isLive).ifPresent(h -> {
                    h.destroyForcibly(); // leave nothing behind even when the assertion fails
                    throw new AssertionError("process " + pid + " of the job is still alive: " + h.info());
                });
            }
        }
    }

    static Job run(final Config config, final List<String> args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final RunCommand cmd = new RunCommand();
        cmd.env = name -> null; // the same hosts even when the tests run inside a Slurm allocation
        cmd.config = config;
        cmd.out = new PrintStream(out, true, StandardCharsets.UTF_8);
        cmd.err = new PrintStream(err, true, StandardCharsets.UTF_8);
        final CommandLine cl = new CommandLine(cmd).setStopAtPositional(true);
        final long t0 = System.nanoTime();
        final int rc = cl.execute(args.toArray(String[]::new));
        final Job job = new Job(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
            (System.nanoTime() - t0) / 1_000_000, cmd.lastJob);
        System.out.println("weft run " + args + " -> " + job + "(" + job.millis() + " ms)");
        if (job.launcher() != null) {
            for (final ProcessHandle p : job.launcher().processes()) {
                assertFalse(ParentWatch.isLive(p), "process " + p.pid() + " outlived the job");
            }
        }
        return job;
    }

    private Job run(final String... args) {
        return run(Config.global().with("RUN_KILL_GRACE", "500ms").with("BOOTSTRAP_TIMEOUT", "20s"),
            List.of(args));
    }

    private List<String> pe(final String... modeAndArgs) {
        final List<String> a = new ArrayList<>(FAST_JVM);
        a.add(LaunchTestPe.class.getName());
        a.add(modeAndArgs[0]);
        a.add(pidDir.toString());
        a.addAll(List.of(modeAndArgs).subList(1, modeAndArgs.length));
        return a;
    }

    private Job runPe(final List<String> launcherArgs, final String... modeAndArgs) {
        final List<String> a = new ArrayList<>(launcherArgs);
        a.addAll(pe(modeAndArgs));
        return run(a.toArray(String[]::new));
    }

    @ParameterizedTest(name = "{0} PEs")
    @ValueSource(ints = {1, 2, 4, 8})
    void shouldRunAJobOfLocalPes(final int n) {
        final Job job = runPe(List.of("-n", Integer.toString(n), "--tag-output"), "exchange");
        assertEquals(0, job.rc(), job.toString());
        final String ring = LaunchTestPe.expectedRing(n);
        for (int r = 0; r < n; r++) {
            assertTrue(job.out().contains("[" + r + "] rank " + r + "/" + n + " local " + r + "/" + n + " node 0 "),
                job.toString());
        }
        assertEquals(n, job.out().lines().filter(l -> l.endsWith(" ring " + ring)).count(), job.toString());
    }

    /** The README's first program, a single-file source run by two PEs over the default transports. */
    @Test
    void shouldRunTheExampleProgram() {
        final java.nio.file.Path example = java.nio.file.Path.of("..", "examples", "HelloWeft.java").toAbsolutePath();
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(example), "no " + example);
        final List<String> a = new ArrayList<>(FAST_JVM);
        a.addAll(List.of("-n", "2", example.toString()));
        final Job job = run(a.toArray(String[]::new));
        assertEquals(0, job.rc(), job.toString());
        assertTrue(job.out().contains("rank 1 got \"hello from rank 0\" and 42 in its heap"), job.toString());
    }

    /**
     * The all-pairs example (every PE connects to every other, one tagged message each way, checked, a barrier)
     * with more PEs than the machine has CPUs, so that the PEs start as on a crowded node ({@link CrowdedNode}).
     */
    @Test
    void shouldRunTheAllPairsExampleWithMorePesThanCpus() {
        final java.nio.file.Path example = java.nio.file.Path.of("..", "examples", "AllPairs.java").toAbsolutePath();
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(example), "no " + example);
        org.junit.jupiter.api.Assumptions.assumeTrue(weft.ucs.Cpus.online() <= 8,
            "crowding a machine of " + weft.ucs.Cpus.online() + " CPUs takes more JVMs than a test should start");
        final int n = Math.max(3, weft.ucs.Cpus.online() + 2);
        final Job job = run("-n", Integer.toString(n), example.toString());
        assertEquals(0, job.rc(), job.toString());
        assertTrue(job.out().contains(n + " PEs: all-pairs wireup + exchange + barrier"), job.toString());
        assertTrue(job.out().contains("rank 0 has " + (n - 1) + " endpoints"), job.toString());
        assertFalse(job.out().contains("per connected peer"), "footprint only when asked: " + job);
        final Job measured = run("-n", Integer.toString(n), example.toString(), "footprint");
        assertEquals(0, measured.rc(), measured.toString());
        assertTrue(measured.out().contains("rank 0 has " + (n - 1) + " endpoints"), measured.toString());
        assertTrue(measured.out().contains("per connected peer, private resident:"), measured.toString());
    }

    /** The MPI examples (package mpi, weft-mpi on the launcher's class path), as single-file sources. */
    @Test
    void shouldRunTheMpiExamples() {
        for (final String name : List.of("MpiHello", "MpiRing")) {
            final java.nio.file.Path example = java.nio.file.Path.of("..", "examples", name + ".java").toAbsolutePath();
            org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(example), "no " + example);
            final List<String> a = new ArrayList<>(FAST_JVM);
            a.addAll(List.of("-n", "3", example.toString()));
            final Job job = run(a.toArray(String[]::new));
            assertEquals(0, job.rc(), job.toString());
            assertTrue(job.out().contains(name.equals("MpiHello") ? "sum of ranks = 3 (expected 3)"
                : "token after 10 laps of 3 ranks: 30"), job.toString());
        }
    }

    @Test
    void shouldPropagateTheFirstNonZeroExitCodeAndStopTheOthers() {
        // A long grace: the others must leave on the service's ABORT, not on SIGTERM.
        final List<String> a = new ArrayList<>(List.of("-n", "3"));
        a.addAll(pe("fail", "1", "7"));
        final Job job = run(Config.global().with("RUN_KILL_GRACE", "10s").with("BOOTSTRAP_TIMEOUT", "20s"), a);
        assertEquals(7, job.rc(), job.toString());
        assertTrue(job.err().contains("rank 1 (pid "), job.toString());
        assertTrue(job.err().contains("exited with code 7; stopping the other 2 PE(s)"), job.toString());
        // The others were told by the key-value service and left at once, before the grace ended.
        assertEquals(2, job.err().lines().filter(l -> l.contains("job aborted by the launcher: rank 1")).count(),
            job.toString());
        assertFalse(job.err().contains("SIGKILL"), job.toString());
        assertTrue(job.millis() < 10_000, job.toString());
    }

    @Test
    void shouldStopTheJobAndCleanUpWhenAPeIsKilled() throws IOException {
        final Job job = runPe(List.of("-n", "3"), "kill", "2");
        assertEquals(137, job.rc(), job.toString());
        assertTrue(job.err().contains("rank 2 (pid ") && job.err().contains("killed by signal 9"), job.toString());
        assertTrue(job.err().contains("removed 3 leftover shared-memory file(s) of job " + job.launcher().jobId()),
            job.toString());
        try (Stream<Path> shm = Files.list(Path.of("/dev/shm"))) {
            assertTrue(shm.noneMatch(p -> p.getFileName().toString().contains(job.launcher().jobId())));
        }
    }

    @Test
    void shouldTerminatePesAndTheirChildrenThatIgnoreTheJob() throws IOException {
        final Job job = runPe(List.of("-n", "2"), "stubborn", "0", "5");
        assertEquals(5, job.rc(), job.toString());
        try (Stream<Path> s = Files.list(pidDir)) {
            assertEquals(4, s.count(), "two PEs and their two children were recorded");
        }
        // @AfterEach checks that the PEs and the 'sleep' children are all gone.
    }

    @Test
    void shouldNameAPeThatNeverReports() {
        final List<String> a = new ArrayList<>(List.of("-n", "2"));
        a.addAll(pe("lonely"));
        final Job job = run(Config.global().with("RUN_KILL_GRACE", "500ms").with("BOOTSTRAP_TIMEOUT", "1s"), a);
        assertEquals(1, job.rc(), job.toString());
        assertTrue(job.err().contains("fence timed out after 1.0 s (WEFT_BOOTSTRAP_TIMEOUT): rank(s) [1] never "
            + "connected to the bootstrap service"), job.toString());
        assertTrue(job.err().contains("rank 0 (pid ") && job.err().contains("exited with code 1"), job.toString());
    }

    @Test
    void shouldKillTheJobAtItsTimeout() {
        final Job job = runPe(List.of("-n", "2", "--timeout", "1.5"), "sleep");
        assertEquals(JobLauncher.TIMEOUT_EXIT, job.rc(), job.toString());
        assertTrue(job.err().contains("did not finish within 1.5 s (--timeout)"), job.toString());
        assertTrue(job.millis() < 15_000, job.toString());
        // before the kill, each PE printed where its threads were: here, main in the PE's sleep
        assertTrue(job.err().contains("2 PE(s) print their threads' stacks"), job.toString());
        assertEquals(2, job.out().split("Full thread dump", -1).length - 1, job.toString());
        assertTrue(job.out().contains("at " + LaunchTestPe.class.getName() + ".main("), job.toString());
    }

    @Test
    void shouldReportAPortInUse() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final Job job = runPe(List.of("-n", "2", "--port", Integer.toString(taken.getLocalPort())), "exchange");
            assertEquals(RunCommand.LAUNCH_ERROR, job.rc(), job.toString());
            assertTrue(job.err().contains("cannot listen on 127.0.0.1:" + taken.getLocalPort()), job.toString());
            assertTrue(job.err().contains("is the port in use?"), job.toString());
        }
    }

    @Test
    void shouldReportAnUnknownHost() throws IOException {
        // A stand-in named ssh: the check happens before any agent runs.
        final Path ssh = script("ssh", "exit 255");
        final Job job = runPe(List.of("-n", "2", "-H", "no-such-host.invalid:2", "--agent", ssh.toString()),
            "exchange");
        assertEquals(RunCommand.LAUNCH_ERROR, job.rc(), job.toString());
        assertTrue(job.err().contains("unknown host 'no-such-host.invalid'"), job.toString());
    }

    @Test
    void shouldReportAMissingAgent() {
        final Job job = runPe(List.of("-n", "1", "-H", "elsewhere", "--agent", "no-such-agent-xyz",
            "--bootstrap-address", "127.0.0.1"), "exchange");
        assertEquals(RunCommand.LAUNCH_ERROR, job.rc(), job.toString());
        assertTrue(job.err().contains("launch agent 'no-such-agent-xyz' not found on PATH"), job.toString());
    }

    @Test
    void shouldReportAFailingAgent() throws IOException {
        final Path agent = script("broken-agent", "echo \"agent: cannot reach $1\" >&2; exit 42");
        final Job job = runPe(List.of("-n", "2", "-H", "hostA:2", "--agent", agent.toString(),
            "--bootstrap-address", "127.0.0.1"), "exchange");
        assertEquals(42, job.rc(), job.toString());
        assertTrue(job.err().contains("agent: cannot reach hostA"), job.toString());
        assertTrue(job.err().contains("the launch agent '" + agent + "' exited with code 42 before the PE "
            + "connected to the bootstrap service"), job.toString());
    }

    @Test
    void shouldRunPesThroughALaunchAgent() throws IOException {
        // An exec-style agent that runs the command here: the remote path (secret on stdin, env, sh -c).
        final Path agent = script("local-agent", "shift; exec \"$@\"");
        final Job job = runPe(List.of("-n", "3", "-H", "hostA:2,hostB:1", "--agent", agent.toString(),
            "--bootstrap-address", "127.0.0.1", "-x", "WEFT_TEST_VAR=x y"), "exchange");
        assertEquals(0, job.rc(), job.toString());
        assertTrue(job.out().contains("rank 0/3 local 0/2 node 0 "), job.toString());
        assertTrue(job.out().contains("rank 1/3 local 1/2 node 0 "), job.toString());
        assertTrue(job.out().contains("rank 2/3 local 0/1 node 1 "), job.toString());
        assertEquals(3, job.out().lines().filter(l -> l.contains(" var x y ring 0,1,2")).count(), job.toString());
    }

    @Test
    void shouldRunAJarWithAMainClass() throws IOException {
        final Path jar = tmp.resolve("app.jar");
        final java.util.jar.Manifest m = new java.util.jar.Manifest();
        m.getMainAttributes().put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(java.util.jar.Attributes.Name.MAIN_CLASS, LaunchTestPe.class.getName());
        try (java.util.jar.JarOutputStream j = new java.util.jar.JarOutputStream(Files.newOutputStream(jar), m)) {
            j.flush(); // the classes come from the class path Weft appends
        }
        final List<String> a = new ArrayList<>(List.of("-n", "2"));
        a.addAll(FAST_JVM);
        a.addAll(List.of(jar.toString(), "exchange", pidDir.toString()));
        final Job job = run(a.toArray(String[]::new));
        assertEquals(0, job.rc(), job.toString());
        assertEquals(2, job.out().lines().filter(l -> l.endsWith(" ring 0,1")).count(), job.toString());
    }

    @Test
    void shouldLeaveNoPeBehindWhenTheLauncherIsKilled() throws Exception {
        killLauncherOnceReady(List.of("-n", "2", "--tag-output"));
    }

    @Test
    void shouldLeaveNoPeBehindWhenTheLauncherOfRemotePesIsKilled() throws Exception {
        // an agent like ssh: the PE runs in a session of its own under an agent that outlives the launcher,
        // so no parent-death signal reaches it: it must notice the lost bootstrap connection by itself
        final Path agent = script("detached-agent", "shift; exec 3<&0; setsid \"$@\" <&3 & exec 3<&-; wait");
        killLauncherOnceReady(List.of("-n", "2", "--tag-output", "-H", "hostA:2", "--agent", agent.toString(),
            "--bootstrap-address", "127.0.0.1"));
    }

    /** Starts {@code weft run ARGS <hold PE>}, SIGKILLs the launcher once both PEs are up, expects them gone. */
    private void killLauncherOnceReady(final List<String> runArgs) throws Exception {
        final List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            weft.tools.Main.class.getName(), "run"));
        cmd.addAll(runArgs);
        cmd.addAll(pe("hold"));
        final Process launcher = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            final java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(
                launcher.getInputStream(), StandardCharsets.UTF_8));
            int ready = 0;
            final StringBuilder seen = new StringBuilder();
            while (ready < 2) {
                final String line = r.readLine(); // the PEs print "ready" within seconds; @Timeout bounds it
                assertTrue(line != null, "launcher ended early: " + seen);
                seen.append(line).append('\n');
                if (line.contains("ready ")) {
                    ready++;
                }
            }
            final List<ProcessHandle> pes = launcher.descendants().toList();
            assertTrue(pes.size() >= 2, pes.toString());
            launcher.destroyForcibly(); // SIGKILL: no shutdown hook runs; the PEs notice the lost connection
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            for (final ProcessHandle pe : pes) {
                while (ParentWatch.isLive(pe) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertTrue(!ParentWatch.isLive(pe), "process " + pe.pid() + " (" + pe.info().command().orElse("?")
                    + ") outlived its launcher");
            }
        } finally {
            launcher.descendants().forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly();
        }
    }

    private Path script(final String name, final String body) throws IOException {
        final Path dir = Files.createDirectories(tmp.resolve("bin"));
        final Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }
}
