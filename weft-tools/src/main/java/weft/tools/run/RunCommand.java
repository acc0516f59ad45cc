package weft.tools.run;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import weft.runtime.LaunchEnv;
import weft.runtime.RuntimeConfig;
import weft.ucs.WeftException;
import weft.ucs.config.Config;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.jar.JarFile;

/**
 * {@code weft run}: starts a job of N PEs (JVMs), mpirun-style. See {@link JobLauncher} for what
 * happens while it runs, {@link HostList} for host syntax, {@link AgentCommand} for launch agents.
 */
@Command(name = "run", sortOptions = false, mixinStandardHelpOptions = true, version = "weft 0.1.0",
    description = {"Run a Java program as N PEs (processes) of one job, like mpirun.",
        "Each PE gets its rank, the job size and the launcher's key-value service (weft.runtime.Runtime.init()).",
        "  weft run -n 4 -cp app.jar my.Main ARGS            four PEs on this machine",
        "  weft run -n 4 -H node1:2,node2:2 -cp ... my.Main   two hosts, started through ssh",
        "  salloc -N 2 -n 8 ./weft run -n 8 --agent 'srun --overlap -N1 -n1 -w' -cp ... my.Main",
        "                                                    the allocation's nodes, started through srun",
        "Exit code: the first non-zero exit code of a PE; " + JobLauncher.TIMEOUT_EXIT + " when --timeout "
            + "expired; 2 when the job could not start."})
public final class RunCommand implements Callable<Integer> {
    /** Exit code when the job could not be started at all. */
    static final int LAUNCH_ERROR = 2;
    /** System property naming the JVM's AOT cache file that the PEs start with (set by the weft script). */
    public static final String AOT_PROPERTY = "weft.tools.aotCache";
    /**
     * Methods a process runs once per interface or per link, never compiled. The training run calls them once
     * per perftest, often enough that the cache's counters had every PE compile them as it started (C1, with
     * an OSR for their loops: 30-60 ms of a PE's start-up, in the foreground when bound; the handshakes' SHA-256
     * with C2, 100 ms), where running them interpreted takes well under a millisecond
     * (bench/results/2026-11-29-session30-startup-compiles.txt).
     * The weft script excludes the same list; RunAotCacheTest checks both and that each method exists.
     * Declared before the lists that use it.
     */
    static final List<String> RUN_ONCE = List.of("weft.ucs.queue.FifoDescriptor::init",
        "weft.uct.shm.ShmInterface::bindDescriptors", "weft.uct.cma.CmaInterface::<init>",
        "weft.ucs.sys.ProcessLiveness::startTime", "weft.ucs.sys.NodeIdentity::*", "weft.ucs.sys.Downcalls::setup*",
        "weft.ucs.Sha256::*", "weft.ucs.HmacSha256::*");

    /**
     * The protocol layer's entry points for tag messages, each compiled on its own, early (at the MPI layer's
     * threshold), and never inlined into a caller: the MPI layer's send and receive methods compile early, and
     * when they did before these had compiled, C2 inlined the whole protocol below them (tcp's zero-copy
     * send, its replay log) into each: a 64 KiB iSend's compile took 470 ms instead of 25, on the rank's own
     * core, and halved OSU's tcp bw at 64 KiB; which way it went changed from run to run
     * (bench/results/2026-11-29-session33-mpi-p2p.txt). UCX calls its protocol layer the same way.
     * The weft script names the same list. Declared before the lists that use it.
     */
    static final List<String> COMPILE_UNITS = List.of("weft.ucp.Endpoint::send", "weft.ucp.TagRecv::recv");
    /**
     * Compiled early as well: the eager GET protocol (8-64 KiB messages on shm), whose active-message handlers
     * are compile roots of their own; once the send was a unit, their C2 compiles fell inside OSU's timed 64 KiB
     * latency pass (29-42 us with this, 81-122 without, Open MPI 4).
     */
    static final List<String> EARLY = List.of("weft.ucp.EagerGet*::*");

    /**
     * With the AOT cache's profiles, Weft's own methods compile after a hundredth of the usual invocations,
     * so that a short job's first operations run optimized code (as the weft script does for its JVMs). The
     * code a PE runs once to join its job and set up keeps the usual thresholds (the last matching command
     * wins): compiled early, it only cost CPU at start-up. So do the shm and cma keepalive checks (a procfs
     * read twice a second): their early C2 compile, tens of ms with the downcalls inlined, stalled the
     * progress loop that ran the check; the FIFO state read a check makes, called from the check's slower
     * code, was compiled on its own at a random moment (3-5 ms inside a short run's measured phase). The
     * MPI layer ({@code mpi.*}) is Weft's too, except its collective schedule: a wait loop that a barrier
     * enters a few times per benchmark, whose early C2 compile (the progress engine inlined, 30-80 ms) fell
     * on the first timed iteration after OSU's barrier.
     */
    static final List<String> AOT_JIT_OPTIONS = jitOptions("0.01", "0.01");
    /**
     * PEs bound to one CPU compile Weft's methods in the foreground ({@link CrowdedNode}), each compile stopping
     * the PE, so {@code weft.*} compiles after a tenth of the usual invocations instead (C2 after ~500 calls):
     * at a hundredth a 2-PE hello job took 2.5 s instead of 1.25 s; the message path's methods, called several
     * times per message, mostly still compile within OSU's warm-up. The MPI layer keeps a hundredth: a
     * collective is one call per iteration, and at a tenth its C2 compiles (150 ms for an allreduce) fell on
     * the first timed iterations after OSU's 500 warm-up ones (bench/results/2026-11-28-session23-mpi-foreground.txt).
     */
    static final List<String> FOREGROUND_JIT_OPTIONS = jitOptions("0.1", "0.01");

    /** The early thresholds, {@code weft.*} and {@code mpi.*} at those scales of the usual ones, and the exceptions. */
    private static List<String> jitOptions(final String weftScale, final String mpiScale) {
        final List<String> o = new ArrayList<>(List.of("-XX:CompileCommand=quiet",
            "-XX:CompileCommand=CompileThresholdScaling,weft.*::*," + weftScale,
            "-XX:CompileCommand=CompileThresholdScaling,mpi.*::*," + mpiScale));
        for (final String usual : List.of("mpi.Schedule::*", "weft.runtime.*::*", "weft.ucs.config.*::*",
            "weft.ucs.sys.ProcessLiveness::*", "weft.uct.shm.ShmEndpoint::check", "weft.uct.cma.CmaEndpoint::check",
            "weft.ucs.queue.FifoDescriptor::state")) {
            o.add("-XX:CompileCommand=CompileThresholdScaling," + usual + ",1.0");
        }
        for (final String unit : COMPILE_UNITS) {
            o.add("-XX:CompileCommand=dontinline," + unit);
            o.add("-XX:CompileCommand=CompileThresholdScaling," + unit + "," + mpiScale);
        }
        for (final String early : EARLY) {
            o.add("-XX:CompileCommand=CompileThresholdScaling," + early + "," + mpiScale);
        }
        for (final String once : RUN_ONCE) {
            o.add("-XX:CompileCommand=exclude," + once);
        }
        return List.copyOf(o);
    }

    /** Set by the launcher for each PE; -x may not override them (the secret must never be on a command line). */
    private static final java.util.Set<String> LAUNCHER_VARIABLES = java.util.Set.of(LaunchEnv.RANK, LaunchEnv.SIZE,
        LaunchEnv.LOCAL_RANK, LaunchEnv.LOCAL_SIZE, LaunchEnv.NODE_ID, LaunchEnv.JOB_ID, LaunchEnv.KV_ADDRESS,
        LaunchEnv.JOB_SECRET, "WEFT_BOOTSTRAP");

    @Option(names = {"-n", "-np", "--np"}, required = true, paramLabel = "N", description = "number of PEs")
    int n;

    @Option(names = {"-H", "--hosts", "--host"}, paramLabel = "H1[:SLOTS],H2[:SLOTS]",
        description = "hosts and their slots (default: inside a Slurm allocation its nodes, SLURM_JOB_NODELIST, "
            + "with SLURM_TASKS_PER_NODE slots each; else all PEs on this machine)")
    String hosts;

    @Option(names = "--hostfile", paramLabel = "FILE", description = "hosts, one per line: 'host', 'host slots=N' "
        + "or 'host:N'")
    Path hostfile;

    @Option(names = "--oversubscribe", description = "place more PEs than slots (ranks wrap around the hosts)")
    boolean oversubscribe;

    @Option(names = "--bind-to", paramLabel = "core|none",
        description = "bind each PE of this machine to its own CPU (core), or not (none); default: core when this "
            + "machine's PEs fit the CPUs the launcher may use, else none")
    String bindTo;

    @Option(names = "--map-by", paramLabel = "slot|node[:PE=N]",
        description = "ranks fill each host's slots in turn (slot, the default; also core) or go round-robin over "
            + "the hosts (node); :PE=N binds each PE to N CPUs")
    String mapBy;

    @Option(names = "--report-bindings", description = "print, for each PE, the CPUs it is bound to")
    boolean reportBindings;

    @Option(names = "--agent", paramLabel = "CMD",
        description = "launch agent for other hosts, run as 'CMD HOST COMMAND...' (default: ${DEFAULT-VALUE}); "
            + "e.g. 'ip netns exec'")
    String agent = "ssh";

    @Option(names = "-x", paramLabel = "VAR[=VAL]", description = "export VAR (with VAL, or its value here) to the PEs")
    List<String> exports = new ArrayList<>();

    @Option(names = "--timeout", paramLabel = "SECONDS",
        description = "kill the job after this many seconds (0 = no limit)")
    double timeoutSeconds;

    @Option(names = "--tag-output", description = "prefix every output line with [rank]")
    boolean tagOutput;

    @Option(names = {"-cp", "--cp", "--classpath"}, paramLabel = "CLASSPATH",
        description = "class path of the program (Weft's own is appended; prepended with the AOT cache)")
    String classpath;

    @Option(names = {"-J", "--jvm-option"}, paramLabel = "OPT", description = "extra option for the PE JVMs")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = "--no-aot-cache", description = "start the PEs without Weft's AOT cache (the weft script "
        + "gives the launcher its path as -D" + AOT_PROPERTY + ")")
    boolean noAotCache;

    @Option(names = "--port", paramLabel = "PORT",
        description = "TCP port of the key-value service (default: any free port)")
    int port;

    @Option(names = "--bootstrap-address", paramLabel = "ADDR",
        description = "address of this machine that remote hosts reach the launcher at (default: the source "
            + "address of the route to each host)")
    String bootstrapAddress;

    @Parameters(index = "0", paramLabel = "MAIN|JAR", description = "main class on the class path, or a jar with a "
        + "Main-Class")
    String main;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "arguments of the program")
    List<String> args = new ArrayList<>();

    /** Configuration (grace period, bootstrap timeout); tests replace it. */
    Config config = Config.global();
    PrintStream out = System.out;
    PrintStream err = System.err;
    /** Where the Slurm allocation's variables are read (tests pass a map). */
    Function<String, String> env = System::getenv;
    /** The last job started, for tests. */
    JobLauncher lastJob;
    /** A single-file program compiled for this job's PEs (see {@link SourceProgram}), or null. */
    SourceProgram program;

    /** {@code weft run}'s arguments read without picocli (see {@link RunArgs}), or null when they need it. */
    public static RunCommand parseFast(final String... args) {
        return RunArgs.parse(args);
    }

    @Override
    public Integer call() {
        try {
            lastJob = new JobLauncher(spec(), out, err);
            return lastJob.run();
        } catch (final LaunchException | WeftException e) {
            err.println("weft run: error: " + e.getMessage());
            return LAUNCH_ERROR;
        } finally {
            if (program != null) {
                program.close();
                program = null;
            }
        }
    }

    JobLauncher.Spec spec() {
        if (n < 1) {
            throw new LaunchException("-n must be at least 1, got " + n);
        }
        if (hosts != null && hostfile != null) {
            throw new LaunchException("give either --hosts or --hostfile, not both");
        }
        final List<HostList.Host> slurm = hosts == null && hostfile == null ? SlurmHosts.fromEnvironment(env) : null;
        final List<HostList.Host> hostList = hosts != null ? HostList.parseHosts(hosts)
            : hostfile != null ? HostList.readHostfile(hostfile)
            : slurm != null ? slurm : List.of(new HostList.Host("localhost", n));
        final Binding.Policy binding = Binding.parse(bindTo, mapBy);
        final List<HostList.Placement> placements = HostList.place(n, hostList, oversubscribe, binding.byNode());
        final List<int[]> cpus = Binding.assign(placements, weft.tools.perftest.Affinity.currentCpus(), binding,
            oversubscribe);
        final List<String> agentWords = List.of(agent.trim().split("\\s+"));
        if (placements.stream().anyMatch(p -> !p.local())) {
            JobLauncher.checkAgent(agentWords);
            if (AgentCommand.joinsWords(agentWords.getFirst())) {
                for (final HostList.Host h : hostList) {
                    checkResolvable(h.name());
                }
            }
        }
        if (main.endsWith(".java") && program == null && placements.stream().allMatch(HostList.Placement::local)) {
            // compiled once here rather than by every PE's java launcher (on other hosts the file is compiled
            // there, as the directory of classes is not shared)
            program = SourceProgram.compile(Path.of(main), classpath == null ? System.getProperty("java.class.path")
                : classpath + java.io.File.pathSeparator + System.getProperty("java.class.path"));
        }
        final long timeoutNs = timeoutSeconds > 0 ? (long) (timeoutSeconds * 1e9) : 0;
        if (timeoutSeconds < 0) {
            throw new LaunchException("--timeout must be >= 0");
        }
        if (port < 0 || port > 65535) {
            throw new LaunchException("--port must be in 0..65535, got " + port);
        }
        final boolean crowded = CrowdedNode.crowded(placements.stream().filter(HostList.Placement::local).count(),
            weft.ucs.Cpus.online());
        return new JobLauncher.Spec(placements, agentWords, exportedVariables(), timeoutNs, tagOutput,
            peCommand(crowded, cpus.stream().anyMatch(c -> c != null && c.length == 1)),
            port, bootstrapAddress, config.get(RuntimeConfig.RUN_KILL_GRACE), config.get(RuntimeConfig.BOOTSTRAP_TIMEOUT),
            config.text(RuntimeConfig.BOOTSTRAP_TIMEOUT), cpus, reportBindings);
    }

    private static void checkResolvable(final String host) {
        if (HostList.isLocal(host)) {
            return;
        }
        try {
            java.net.InetAddress.getByName(host);
        } catch (final IOException e) {
            throw new LaunchException("unknown host '" + host + "': it does not resolve (with the ssh agent every "
                + "host must be a resolvable name or address)");
        }
    }

    private Map<String, String> exportedVariables() {
        final Map<String, String> env = new LinkedHashMap<>();
        for (final String x : exports) {
            final int eq = x.indexOf('=');
            final String name = eq < 0 ? x : x.substring(0, eq);
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new LaunchException("-x " + x + ": '" + name + "' is not a valid environment variable name");
            }
            if (LAUNCHER_VARIABLES.contains(name)) {
                throw new LaunchException("-x " + name + ": the launcher sets this variable for every PE");
            }
            final String value = eq < 0 ? System.getenv(name) : x.substring(eq + 1);
            if (value == null) {
                throw new LaunchException("-x " + name + ": the variable is not set here (give -x " + name + "=VALUE)");
            }
            env.put(name, value);
        }
        return env;
    }

    /**
     * The PEs' command; {@code crowded}: this node's PEs outnumber its CPUs, {@code bound}: they run on one CPU
     * each (see {@link CrowdedNode}).
     */
    List<String> peCommand(final boolean crowded, final boolean bound) {
        final String own = System.getProperty("java.class.path");
        // the java launcher's source mode adds modules the cache was not trained with: the JVM would refuse it
        final String aot = main.endsWith(".java") && program == null ? null : aotCache();
        // With the AOT cache, Weft's class path comes first: the JVM uses a cache only when the class path
        // starts with the training run's. Else the program's goes first, as before.
        final String sep = java.io.File.pathSeparator;
        final String cp = classpath == null ? own : aot != null ? own + sep + classpath : classpath + sep + own;
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        final List<String> foreground = bound && !crowded ? CrowdedNode.boundOptions(jvmOptions) : List.of();
        if (aot != null) {
            cmd.add("-XX:AOTCache=" + aot);
            if (!crowded) {
                cmd.addAll(foreground.isEmpty() ? AOT_JIT_OPTIONS : FOREGROUND_JIT_OPTIONS);
            }
        }
        if (crowded) {
            cmd.addAll(CrowdedNode.options(jvmOptions));
        }
        cmd.addAll(foreground);
        cmd.addAll(jvmOptions);
        if (main.endsWith(".jar")) {
            cmd.add("-cp");
            cmd.add(aot != null ? cp + sep + main : main + sep + cp);
            cmd.add(mainClassOf(Path.of(main)));
        } else if (program != null) { // a single-file program, compiled by the launcher
            cmd.add("-cp");
            cmd.add(cp + sep + program.classes());
            cmd.add(program.mainClass());
        } else if (main.endsWith(".java")) { // a single-file program on other hosts, compiled by the java launcher
            cmd.add("-cp");
            cmd.add(cp);
            cmd.add(Path.of(main).toAbsolutePath().toString());
        } else {
            cmd.add("-cp");
            cmd.add(cp);
            cmd.add(main);
        }
        cmd.addAll(args);
        return cmd;
    }

    /**
     * The AOT cache the PEs start with: the one the {@code weft} script passes as {@value #AOT_PROPERTY}
     * when it exists, unless the PE options choose their own ({@code -XX:AOTCache}, {@code -XX:AOTMode}) or
     * --no-aot-cache is given; else null.
     */
    private String aotCache() {
        final String path = System.getProperty(AOT_PROPERTY);
        if (noAotCache || path == null || path.isEmpty() || !Files.isRegularFile(Path.of(path))) {
            return null;
        }
        for (final String o : jvmOptions) {
            if (o.startsWith("-XX:AOTCache") || o.startsWith("-XX:AOTMode") || o.startsWith("-XX:SharedArchiveFile")
                || o.startsWith("-Xshare")) {
                return null;
            }
        }
        return path;
    }

    private static String mainClassOf(final Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new LaunchException("jar " + jar + " does not exist");
        }
        try (JarFile j = new JarFile(jar.toFile())) {
            final String mc = j.getManifest() == null ? null : j.getManifest().getMainAttributes().getValue("Main-Class");
            if (mc == null || mc.isBlank()) {
                throw new LaunchException("jar " + jar + " has no Main-Class in its manifest; give the class with "
                    + "-cp " + jar + " CLASS");
            }
            return mc.trim();
        } catch (final IOException e) {
            throw new LaunchException("cannot read jar " + jar + ": " + e.getMessage(), e);
        }
    }
}
