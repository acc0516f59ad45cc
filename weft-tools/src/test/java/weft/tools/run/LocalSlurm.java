package weft.tools.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A private Slurm cluster for the tests, brought up and torn down by the repository's
 * {@code .ci/slurm-local.sh} (its own munge key and socket, ports, state and logs in a temporary
 * directory): one node (this machine), or several, each a network namespace of this machine. And the
 * commands run against it: each with a clean environment (no SLURM_*, PMI*,
 * OMPI_* or WEFT_* from the machine, SLURM_CONF pointing at this cluster), a unique job name, a marker
 * variable every task inherits (so that {@link #survivors} finds any process of that job left alive),
 * and a deadline after which everything it started is killed and its job cancelled.
 */
final class LocalSlurm implements AutoCloseable {
    /** The script, from the weft-tools module directory surefire runs in. */
    static final Path SCRIPT = Path.of("..", ".ci", "slurm-local.sh").toAbsolutePath().normalize();
    /** Variable in every task's environment, holding the command's unique name. */
    static final String MARKER = "SLURMJOBTEST_MARKER";

    final Path dir;
    private final Path conf;

    private LocalSlurm(final Path dir, final Path conf) {
        this.dir = dir;
        this.conf = conf;
    }

    /** One finished command: exit code, output (stdout and stderr merged), wall time, and its unique name. */
    record Result(int rc, String out, long millis, String name) {
        @Override
        public String toString() {
            return "rc=" + rc + " after " + millis + " ms\n--- output\n" + out;
        }
    }

    /** Why no one-node cluster can be brought up here, or null when one can (the script's own check). */
    static String unavailable() throws IOException, InterruptedException {
        return unavailable(1);
    }

    /** Why no cluster of {@code nodes} nodes can be brought up here, or null when one can. */
    static String unavailable(final int nodes) throws IOException, InterruptedException {
        if (!Files.isExecutable(SCRIPT)) {
            return SCRIPT + " is missing";
        }
        final Process p = new ProcessBuilder(SCRIPT.toString(), "check", Integer.toString(nodes))
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "the Slurm check did not finish";
        }
        return p.exitValue() == 0 ? null : out;
    }

    /** Starts a one-node cluster. */
    static LocalSlurm start() throws IOException, InterruptedException {
        return start(1);
    }

    /**
     * Starts munged, slurmctld and the slurmd of each of {@code nodes} nodes (n1..nN when more than one) in a
     * new temporary directory; fails with the script's output and the daemons' logs.
     */
    static LocalSlurm start(final int nodes) throws IOException, InterruptedException {
        final Path dir = Files.createTempDirectory(Path.of("/tmp"), "weft-slurm-");
        final Process p = new ProcessBuilder(SCRIPT.toString(), "up", dir.toString(), Integer.toString(nodes))
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        final boolean done = p.waitFor(90, TimeUnit.SECONDS);
        final LocalSlurm s = new LocalSlurm(dir, dir.resolve("slurm.conf"));
        if (!done || p.exitValue() != 0 || !out.contains("SLURM_CONF=" + s.conf)) {
            p.destroyForcibly();
            s.close();
            throw new IllegalStateException("the local Slurm cluster did not come up:\n" + out + logs(dir));
        }
        return s;
    }

    private static String logs(final Path dir) {
        final StringBuilder sb = new StringBuilder();
        final List<String> names = new ArrayList<>(List.of("slurmctld.log", "munge/munged.log"));
        try (Stream<Path> files = Files.list(dir)) {
            files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith("slurmd-")).sorted().forEach(names::add);
        } catch (final IOException e) {
            // listed below as missing
        }
        for (final String log : names) {
            try {
                final List<String> lines = Files.readAllLines(dir.resolve(log));
                sb.append("\n--- ").append(log).append('\n')
                    .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
            } catch (final IOException e) {
                sb.append("\n--- ").append(log).append(": ").append(e.getMessage());
            }
        }
        return sb.toString();
    }

    /**
     * Runs {@code command} (its first word srun, sbatch or salloc, whose job is named by the command's
     * unique name: pass {@code "--job-name=" + NAME} where NAME comes from {@link #newName}) with
     * {@code extraEnv} added to the clean environment, and waits at most {@code timeoutSeconds}.
     */
    Result run(final String name, final List<String> command, final Map<String, String> extraEnv,
               final long timeoutSeconds) throws IOException, InterruptedException {
        final Path out = Files.createTempFile(dir, "out-", ".txt");
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        environment(pb, name, extraEnv);
        final long t0 = System.nanoTime();
        final Process p = pb.start();
        try {
            p.getOutputStream().close();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                throw new AssertionError(command.getFirst() + " did not finish within " + timeoutSeconds + " s:\n"
                    + Files.readString(out));
            }
            return new Result(p.exitValue(), Files.readString(out), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                name);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            cancel(name);
        }
    }

    private void environment(final ProcessBuilder pb, final String name, final Map<String, String> extraEnv) {
        final Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("PMI") || k.startsWith("OMPI_")
            || k.startsWith("WEFT_"));
        env.put("SLURM_CONF", conf.toString());
        env.put(MARKER, name);
        env.putAll(extraEnv);
    }

    /**
     * Submits a batch job ({@code sbatch --parsable} with {@code sbatchArgs}, which name the job as {@link #run}
     * says) and waits at most {@code timeoutSeconds} for it to end, asking {@code scontrol} every 100 ms
     * ({@code sbatch --wait} asks at intervals that grow to 10 s: a job of 3 s took 10). The result's rc is the
     * job's exit code (128 + the signal that ended it), its output sbatch's and scontrol's last answer.
     */
    Result batch(final String name, final List<String> sbatchArgs, final Map<String, String> extraEnv,
                 final long timeoutSeconds) throws IOException, InterruptedException {
        final long t0 = System.nanoTime();
        final long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        try {
            final List<String> submit = new ArrayList<>(List.of("sbatch", "--parsable"));
            submit.addAll(sbatchArgs);
            final String submitted = command(submit, name, extraEnv, deadline).trim();
            if (!submitted.matches("[0-9]+(;.*)?")) {
                throw new AssertionError("sbatch did not submit the job: " + submitted);
            }
            final String id = submitted.split(";")[0];
            while (true) {
                final String job = command(List.of("scontrol", "-o", "show", "job", id), name, Map.of(), deadline);
                final Matcher state = JOB_STATE.matcher(job);
                final Matcher exit = EXIT_CODE.matcher(job);
                if (state.find() && !RUNNING_STATES.contains(state.group(1)) && exit.find()) {
                    final int signal = Integer.parseInt(exit.group(2));
                    final int rc = signal != 0 ? 128 + signal : Integer.parseInt(exit.group(1));
                    return new Result(rc, submitted + "\n" + job, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                        name);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("batch job " + id + " did not end within " + timeoutSeconds + " s: " + job);
                }
                Thread.sleep(100);
            }
        } finally {
            cancel(name);
        }
    }

    private static final Pattern JOB_STATE = Pattern.compile("JobState=([A-Z_]+)");
    private static final Pattern EXIT_CODE = Pattern.compile("ExitCode=([0-9]+):([0-9]+)");
    /** Job states of a job that has not ended yet. */
    private static final Set<String> RUNNING_STATES = Set.of("PENDING", "CONFIGURING", "RUNNING",
        "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD",
        "REQUEUE_FED", "REQUEUE_HOLD", "SPECIAL_EXIT");

    /** Runs a short Slurm command ({@code sbatch}, {@code scontrol}) to its end, by the deadline; returns its output. */
    private String command(final List<String> command, final String name, final Map<String, String> extraEnv,
                           final long deadline) throws IOException, InterruptedException {
        final Path file = Files.createTempFile(dir, "cmd-", ".txt");
        try {
            final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(file.toFile());
            environment(pb, name, extraEnv);
            final Process p = pb.start();
            p.getOutputStream().close();
            // the output goes to a file, so the wait itself is what the deadline bounds
            final boolean ended = p.waitFor(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
                TimeUnit.MILLISECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            final String out = Files.readString(file);
            if (!ended) {
                throw new AssertionError(String.join(" ", command) + " did not finish in time: " + out);
            }
            if (p.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out);
            }
            return out;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** The address of this machine every node reaches (the controller's), for weft run's --bootstrap-address. */
    String controllerAddress() throws IOException {
        final Path f = dir.resolve("ctld_addr");
        return Files.exists(f) ? Files.readString(f).trim() : "127.0.0.1";
    }

    /** JVM options of the tasks: small and quick to start (the machine has two cores). */
    static final List<String> FAST_JVM = List.of("--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC", "-XX:-UsePerfData");

    /**
     * {@code srun --mpi=MPI SRUN_OPTS java FAST_JVM -cp (the tests' class path) MAIN ARGS}, bounded by Slurm
     * ({@code --time}) and by the wait; the job's unique name is added to {@code names} (for {@link #leftovers}).
     */
    Result srunJava(final List<String> names, final String mpi, final List<String> srunOpts, final Map<String, String> env,
                    final String mainClassOrSource, final String... args) throws IOException, InterruptedException {
        final String name = newName();
        names.add(name);
        final List<String> cmd = new ArrayList<>(List.of("srun", "--mpi=" + mpi, "--job-name=" + name, "--time=2"));
        cmd.addAll(srunOpts);
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.addAll(FAST_JVM);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClassOrSource));
        cmd.addAll(List.of(args));
        return run(name, cmd, env, 100);
    }

    /**
     * The processes still alive of the jobs {@code names} (by marker, after a grace) and of the PEs whose pid
     * files are in {@code pidDir}; each is killed, so that nothing outlives the test even when it fails.
     */
    static List<String> leftovers(final List<String> names, final Path pidDir) throws IOException, InterruptedException {
        final List<String> left = new ArrayList<>();
        for (final String name : names) {
            left.addAll(survivors(name, 15));
            killSurvivors(name);
        }
        try (Stream<Path> s = Files.list(pidDir)) {
            for (final Path p : s.toList()) {
                ProcessHandle.of(Long.parseLong(p.getFileName().toString())).filter(weft.tools.ParentWatch::isLive)
                    .ifPresent(h -> {
                        left.add(h.pid() + " " + h.info().commandLine().orElse("?"));
                        h.destroyForcibly();
                    });
            }
        }
        return left;
    }

    /** A unique job name. */
    static String newName() {
        return "wefttest-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Cancels the jobs named {@code name} (a no-op once they ended). */
    void cancel(final String name) throws IOException, InterruptedException {
        final ProcessBuilder pb = new ProcessBuilder("scancel", "--name=" + name).redirectErrorStream(true);
        pb.environment().put("SLURM_CONF", conf.toString());
        final Process p = pb.start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }

    /**
     * The live processes (zombies are dead) whose environment carries the marker of {@code name}, after
     * waiting up to {@code graceSeconds} for them to go (Slurm's kill of a step takes a moment).
     */
    static List<String> survivors(final String name, final long graceSeconds) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(graceSeconds);
        while (true) {
            final List<String> alive = new ArrayList<>();
            try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
                all.filter(h -> h.pid() != ProcessHandle.current().pid())
                    .filter(h -> hasMarker(h.pid(), name) && weft.tools.ParentWatch.isLive(h))
                    .forEach(h -> alive.add(h.pid() + " " + h.info().commandLine().orElse("?")));
            }
            if (alive.isEmpty() || System.nanoTime() > deadline) {
                return alive;
            }
            Thread.sleep(200);
        }
    }

    private static boolean hasMarker(final long pid, final String name) {
        try {
            final String env = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")),
                StandardCharsets.UTF_8);
            return env.contains(MARKER + "=" + name + "\0");
        } catch (final IOException e) {
            return false; // gone, or not ours to read
        }
    }

    /** Kills every survivor of {@code name} (after a failed check, so that nothing outlives the test). */
    static void killSurvivors(final String name) throws InterruptedException {
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            all.filter(h -> h.pid() != ProcessHandle.current().pid() && hasMarker(h.pid(), name))
                .forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** Cancels every job, stops the daemons and removes the directory. */
    @Override
    public void close() throws IOException, InterruptedException {
        final Process p = new ProcessBuilder(SCRIPT.toString(), "down", dir.toString()).redirectErrorStream(true)
            .start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            System.err.println("slurm-local.sh down failed:\n" + out);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
