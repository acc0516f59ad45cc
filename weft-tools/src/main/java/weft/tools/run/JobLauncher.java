package weft.tools.run;

import weft.runtime.KvServer;
import weft.runtime.LaunchEnv;
import weft.tools.perftest.Affinity;
import weft.ucs.WeftException;
import weft.ucs.sys.KernelRandom;
import weft.ucs.sys.LibC;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs one job: starts the key-value service, starts every PE (directly on this machine, through
 * the launch agent elsewhere), forwards their output, and waits. The first PE to exit non-zero
 * decides the exit code (unless a PE ended the job with a global exit: then its status, 0 included); the
 * others are then told to abort, and after a grace period sent SIGTERM,
 * then SIGKILL. A job over its time limit is killed (exit code {@value #TIMEOUT_EXIT}). At the end no
 * process of the job is left alive and /dev/shm holds no file named after the job.
 */
final class JobLauncher {
    /** Exit code of a job killed at its time limit (as timeout(1)). */
    static final int TIMEOUT_EXIT = 124;
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long RECORD_NS = TimeUnit.MILLISECONDS.toNanos(300);
    /** How long the PEs of a job over its time limit get to print their threads' stacks before they are killed. */
    static final long DUMP_NS = TimeUnit.SECONDS.toNanos(2);
    private static final Path SHM_DIR = Path.of("/dev/shm");

    /** Everything a job needs; built by {@link RunCommand}. */
    record Spec(List<HostList.Placement> placements, List<String> agent, Map<String, String> exports,
                long timeoutNs, boolean tagOutput, List<String> peCommand, int port, String bootstrapAddress,
                long graceNs, long bootstrapTimeoutNs, String bootstrapTimeoutText, List<int[]> cpus,
                boolean reportBindings) {
    }

    private final Spec spec;
    private final PrintStream out;
    private final PrintStream err;
    private final String jobId;
    private final String secret;
    private final ProcessTree tree = new ProcessTree();
    private final List<Pe> pes = new ArrayList<>();
    private final LinkedBlockingQueue<Pe> exits = new LinkedBlockingQueue<>();

    /** One started PE: its process (the JVM, or the agent that runs it) and its output pumps. */
    private record Pe(HostList.Placement where, Process process, OutputPump stdout, OutputPump stderr) {
    }

    JobLauncher(final Spec spec, final PrintStream out, final PrintStream err) {
        this.spec = spec;
        this.out = out;
        this.err = err;
        final byte[] id = new byte[6];
        KernelRandom.nextBytes(id);
        jobId = "weft-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(id);
        final byte[] s = new byte[32];
        KernelRandom.nextBytes(s);
        secret = HexFormat.of().formatHex(s);
    }

    String jobId() {
        return jobId;
    }

    /** Every process of the job seen so far (PEs, agents and their children), for tests. */
    List<ProcessHandle> processes() {
        return tree.all();
    }

    /** Runs the job to its end; returns the exit code. */
    int run() {
        final boolean anyRemote = spec.placements().stream().anyMatch(p -> !p.local());
        final InetSocketAddress bind = anyRemote ? new InetSocketAddress(spec.port())
            : new InetSocketAddress(InetAddress.getLoopbackAddress(), spec.port());
        final Map<String, String> remoteAddress = anyRemote ? remoteAddresses() : Map.of();
        final KvServer server;
        try {
            server = KvServer.start(spec.placements().size(), secret, bind, spec.bootstrapTimeoutNs(),
                msg -> err.println("weft run: " + msg));
        } catch (final WeftException e) {
            throw new LaunchException(e.getMessage(), e);
        }
        final Thread hook = Thread.ofPlatform().unstarted(this::killEverything);
        java.lang.Runtime.getRuntime().addShutdownHook(hook);
        try {
            for (final HostList.Placement p : spec.placements()) {
                final String kv = (p.local() ? "127.0.0.1" : remoteAddress.get(p.host())) + ":" + server.port();
                final Pe pe = start(p, kv);
                pes.add(pe);
                pe.process().onExit().thenRun(() -> exits.add(pe));
            }
            return monitor(server);
        } catch (final LaunchException e) {
            killEverything();
            throw e;
        } finally {
            finish(server);
            try {
                java.lang.Runtime.getRuntime().removeShutdownHook(hook);
            } catch (final IllegalStateException e) {
                // the JVM is shutting down: the hook runs anyway
            }
        }
    }

    private int monitor(final KvServer server) {
        final long start = System.nanoTime();
        final long deadline = spec.timeoutNs() > 0 ? start + spec.timeoutNs() : Long.MAX_VALUE;
        int running = pes.size();
        int exitCode = 0;
        long failedAt = 0;
        long terminatedAt = 0;
        boolean failed = false;
        boolean killed = false;
        long dumpedAt = 0;
        long recordedAt = System.nanoTime(); // each PE was recorded as it started
        while (running > 0) {
            if (System.nanoTime() - recordedAt >= RECORD_NS) { // a scan of every process: not every tick
                final List<ProcessHandle> roots = new ArrayList<>(pes.size());
                for (final Pe pe : pes) {
                    roots.add(pe.process().toHandle());
                }
                tree.recordAll(roots);
                recordedAt = System.nanoTime();
            }
            final Pe done;
            try {
                done = exits.poll(POLL_NS, TimeUnit.NANOSECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                err.println("weft run: interrupted; killing the job");
                killEverything();
                return 130;
            }
            final long now = System.nanoTime();
            if (done != null) {
                running--;
                final int code = done.process().exitValue();
                final Integer global = server.globalExitStatus();
                if (global != null && !failed) {
                    // a PE ended the job on purpose (shmem_global_exit): its status is the job's, 0 included
                    failed = true;
                    failedAt = now;
                    exitCode = global;
                } else if (code != 0 && !failed) {
                    failed = true;
                    failedAt = now;
                    exitCode = code;
                    final String why = describeExit(done, code, server);
                    err.println("weft run: " + why + (running > 0 ? "; stopping the other " + running + " PE(s)" : ""));
                    server.abort(code, why);
                }
                continue;
            }
            if (now - deadline >= 0 && !killed && dumpedAt == 0) {
                // first the stacks of a hung job's threads, the one clue to where it hangs
                final int dumped = dumpStacks();
                err.println("weft run: the job did not finish within " + seconds(spec.timeoutNs()) + " s (--timeout); "
                    + dumped + " PE(s) print their threads' stacks on their output (SIGQUIT) before they are killed");
                dumpedAt = now;
            } else if (dumpedAt != 0 && now - dumpedAt >= DUMP_NS && !killed) {
                err.println("weft run: the job did not finish within " + seconds(spec.timeoutNs()) + " s (--timeout); "
                    + "killing its " + running + " running PE(s)");
                server.abort("the job exceeded its time limit");
                if (!failed) {
                    exitCode = TIMEOUT_EXIT;
                    failed = true;
                }
                signalAll(true);
                killed = true;
            } else if (failed && terminatedAt == 0 && now - failedAt >= spec.graceNs()) {
                signalAll(false); // SIGTERM: shutdown hooks run
                terminatedAt = now;
            } else if (terminatedAt != 0 && !killed && now - terminatedAt >= spec.graceNs()) {
                err.println("weft run: " + running + " PE(s) ignored SIGTERM; sending SIGKILL");
                signalAll(true);
                killed = true;
            }
        }
        return exitCode;
    }

    private String describeExit(final Pe pe, final int code, final KvServer server) {
        final HostList.Placement p = pe.where();
        final String signal = code > 128 && code < 160 ? " (killed by signal " + (code - 128) + ")" : "";
        if (!p.local() && !server.hasConnected(p.rank())) {
            return "rank " + p.rank() + " on host " + p.host() + ": the launch agent '" + String.join(" ", spec.agent())
                + "' exited with code " + code + signal + " before the PE connected to the bootstrap service "
                + "(is the host reachable and the agent working? its output is above)";
        }
        return "rank " + p.rank() + (p.local() ? "" : " on host " + p.host()) + " (pid " + pe.process().pid()
            + ") exited with code " + code + signal;
    }

    /**
     * SIGQUIT to every running PE of this machine that is a JVM (HotSpot prints each thread's stack on its
     * standard output, which the pumps forward, and goes on); a remote PE's agent is not signalled. Returns
     * how many were signalled.
     */
    private int dumpStacks() {
        int n = 0;
        for (final Pe pe : pes) {
            final ProcessHandle h = pe.process().toHandle();
            final boolean jvm = h.info().command().map(c -> c.endsWith("/java")).orElse(false);
            if (pe.where().local() && h.isAlive() && jvm && LibC.kill((int) h.pid(), LibC.SIGQUIT) == 0) {
                n++;
            }
        }
        return n;
    }

    private void signalAll(final boolean forcibly) {
        for (final Pe pe : pes) {
            if (pe.process().isAlive()) {
                tree.signal(pe.process().toHandle(), forcibly);
            }
        }
    }

    /** The shutdown hook and error path: SIGKILL to everything of the job. */
    private void killEverything() {
        for (final Pe pe : pes) {
            tree.signal(pe.process().toHandle(), true);
        }
        tree.killAllAlive();
    }

    private void finish(final KvServer server) {
        // Children a PE started and left behind (re-parented when it died) are killed too.
        final int orphans = tree.killAllAlive();
        if (orphans > 0) {
            err.println("weft run: killed " + orphans + " leftover process(es) of the job");
        }
        // Polled: onExit() of a process that is not our child (a PE's child) polls slowly in the JDK.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<ProcessHandle> alive = tree.alive();
        while (!alive.isEmpty() && System.nanoTime() < deadline) {
            sleepQuietly(10);
            alive = tree.alive();
        }
        for (final ProcessHandle p : alive) {
            err.println("weft run: process " + p.pid() + " of the job did not exit within 5 s of SIGKILL");
        }
        for (final Pe pe : pes) {
            try {
                pe.stdout().join(2000);
                pe.stderr().join(2000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        server.close();
        removeShmFiles();
    }

    /** Weft's shm transport uses memfd (no files), but anything named after the job is removed anyway. */
    private void removeShmFiles() {
        if (!Files.isDirectory(SHM_DIR)) {
            return;
        }
        int removed = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(SHM_DIR, "*" + jobId + "*")) {
            for (final Path p : ds) {
                try {
                    Files.deleteIfExists(p);
                    removed++;
                } catch (final IOException e) {
                    err.println("weft run: cannot remove " + p + ": " + e.getMessage());
                }
            }
        } catch (final IOException e) {
            err.println("weft run: cannot list " + SHM_DIR + ": " + e.getMessage());
        }
        if (removed > 0) {
            err.println("weft run: removed " + removed + " leftover shared-memory file(s) of job " + jobId
                + " from " + SHM_DIR);
        }
    }

    private Pe start(final HostList.Placement p, final String kvAddress) {
        final Map<String, String> env = new LinkedHashMap<>(spec.exports());
        env.put(LaunchEnv.RANK, Integer.toString(p.rank()));
        env.put(LaunchEnv.SIZE, Integer.toString(spec.placements().size()));
        env.put(LaunchEnv.LOCAL_RANK, Integer.toString(p.localRank()));
        env.put(LaunchEnv.LOCAL_SIZE, Integer.toString(p.localSize()));
        env.put(LaunchEnv.NODE_ID, Integer.toString(p.nodeId()));
        env.put(LaunchEnv.JOB_ID, jobId);
        env.put(LaunchEnv.KV_ADDRESS, kvAddress);
        env.put("WEFT_BOOTSTRAP", "launcher");
        env.put("WEFT_BOOTSTRAP_TIMEOUT", spec.bootstrapTimeoutText());
        final List<String> command;
        if (p.local()) {
            env.put(LaunchEnv.JOB_SECRET, secret);
            command = spec.peCommand();
        } else {
            // A remote PE inherits nothing: Weft's tunables set here (WEFT_TLS, ...) travel with it.
            System.getenv().forEach((k, v) -> {
                if (k.startsWith("WEFT_") && !k.equals(LaunchEnv.JOB_SECRET)) {
                    env.putIfAbsent(k, v);
                }
            });
            command = AgentCommand.build(spec.agent(), p.host(), env, spec.peCommand(),
                System.getProperty("user.dir"));
        }
        final ProcessBuilder pb = new ProcessBuilder(command);
        if (p.local()) {
            pb.environment().putAll(env);
        }
        final int[] cpus = spec.cpus() == null ? null : spec.cpus().get(p.rank());
        final Process process = startBound(pb, cpus, p, command);
        if (spec.reportBindings()) {
            err.println("weft run: rank " + p.rank() + " (pid " + process.pid() + ") on " + p.host()
                + (cpus != null ? " bound to CPU " + Binding.ranges(cpus)
                : p.local() ? " not bound" : " not bound (binding applies to this machine's PEs)"));
        }
        tree.add(process.toHandle());
        try (OutputStream stdin = process.getOutputStream()) {
            if (!p.local()) {
                // The secret goes to the remote shell on stdin: never on a command line (ps would show it).
                stdin.write((secret + "\n").getBytes(StandardCharsets.US_ASCII));
            }
        } catch (final IOException e) {
            // the agent died at once: its exit code and output report why
        }
        final String prefix = spec.tagOutput() ? "[" + p.rank() + "] " : "";
        final OutputPump o = new OutputPump(process.getInputStream(), out, prefix, "weft-run-out-" + p.rank());
        final OutputPump e = new OutputPump(process.getErrorStream(), err, prefix, "weft-run-err-" + p.rank());
        o.start();
        e.start();
        return new Pe(p, process, o, e);
    }

    /**
     * util-linux's taskset, which binds a PE as it starts (Debian's util-linux is essential, so it is there);
     * the system property names another, or "none" for the launcher's own thread-mask path (tested both ways).
     */
    static final String TASKSET_PROPERTY = "weft.tools.taskset";

    private static Path taskset() {
        final String t = System.getProperty(TASKSET_PROPERTY, "/usr/bin/taskset");
        return t.equals("none") ? null : Path.of(t);
    }

    /**
     * Starts the process with the CPU affinity {@code cpus} (null: the launcher's own), through {@code taskset}
     * where it is installed; else a child inherits the mask of the thread that starts it, so this thread takes
     * the PE's mask for the start and then its own back. Every thread of the PE's JVM then runs on those CPUs,
     * as mpirun's binding does.
     */
    private static Process startBound(final ProcessBuilder pb, final int[] cpus, final HostList.Placement p,
                                      final List<String> command) {
        final Path taskset = cpus == null ? null : taskset();
        final int[] own;
        if (taskset != null && Files.isExecutable(taskset)) {
            // taskset sets the mask and execs the PE (same pid): the launcher then makes no libc downcall, whose
            // first link cost it 30-40 ms before its first PE
            final List<String> bound = new ArrayList<>(List.of(taskset.toString(), "-c", Binding.ranges(cpus)));
            bound.addAll(pb.command());
            pb.command(bound);
            own = null;
        } else if (cpus != null) {
            own = Affinity.currentCpus();
            final int rc = Affinity.pinCurrentThread(cpus);
            if (rc != 0) {
                throw new LaunchException("cannot bind rank " + p.rank() + " to CPU " + Binding.ranges(cpus)
                    + ": sched_setaffinity failed with errno " + -rc + " (pass --bind-to none)");
            }
        } else {
            own = null;
        }
        Process started = null;
        IOException failure = null;
        try {
            started = pb.start();
        } catch (final IOException e) {
            failure = e;
        }
        if (own != null && Affinity.pinCurrentThread(own) != 0) {
            if (started != null) {
                started.destroyForcibly();
            }
            throw new LaunchException("cannot restore the launcher's CPU affinity " + Binding.ranges(own));
        }
        if (failure != null) {
            throw new LaunchException("cannot start rank " + p.rank() + " (" + command.getFirst() + "): "
                + failure.getMessage(), failure);
        }
        return started;
    }

    /** For each remote host, the address of this machine it reaches the key-value service at. */
    private Map<String, String> remoteAddresses() {
        final Map<String, String> out = new LinkedHashMap<>();
        for (final HostList.Placement p : spec.placements()) {
            if (p.local() || out.containsKey(p.host())) {
                continue;
            }
            if (spec.bootstrapAddress() != null) {
                out.put(p.host(), spec.bootstrapAddress());
                continue;
            }
            out.put(p.host(), routeSource(p.host()));
        }
        return out;
    }

    /** The local address the kernel would use towards {@code host} (no packet is sent). */
    private static String routeSource(final String host) {
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(InetAddress.getByName(host), 9);
            final InetAddress local = probe.getLocalAddress();
            if (local == null || local.isAnyLocalAddress()) {
                throw new IOException("no route");
            }
            return local.getHostAddress();
        } catch (final UnknownHostException e) {
            throw new LaunchException("cannot tell which address of this machine host '" + host + "' reaches "
                + "the launcher at (the name does not resolve here); pass --bootstrap-address ADDR");
        } catch (final IOException e) {
            throw new LaunchException("cannot tell which address of this machine host '" + host + "' reaches "
                + "the launcher at (" + e.getMessage() + "); pass --bootstrap-address ADDR");
        }
    }

    /** Checks that the agent can be started: an executable path, or a name found on PATH. */
    static void checkAgent(final List<String> agent) {
        final String exe = agent.getFirst();
        if (exe.contains("/")) {
            if (!Files.isExecutable(Path.of(exe))) {
                throw new LaunchException("launch agent '" + exe + "' is not an executable file");
            }
            return;
        }
        final String path = System.getenv().getOrDefault("PATH", "");
        for (final String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, exe))) {
                return;
            }
        }
        throw new LaunchException("launch agent '" + exe + "' not found on PATH (install it, or choose another "
            + "with --agent)");
    }

    private static void sleepQuietly(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String seconds(final long ns) {
        return ns % 1_000_000_000L == 0 ? Long.toString(ns / 1_000_000_000L) : String.format("%.1f", ns / 1e9);
    }
}
