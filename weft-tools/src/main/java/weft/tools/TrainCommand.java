package weft.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import weft.tools.perftest.PerftestCommand;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code weft train}: the training run of the JVM's ahead-of-time cache ({@code -XX:AOTCacheOutput}, JEP
 * 483/514/515). The {@code weft} script runs it once per build; the cache then holds the classes this run
 * loaded and linked and the method profiles it gathered, so that other JVMs started with
 * {@code -XX:AOTCache} skip that loading and compile their hot methods from the first calls with the
 * training's profiles. It runs, in this one process, the protocol-layer perftests short jobs run most
 * (tag, put/get, atomics, active messages, streams; small and large messages) over shared memory and over
 * TCP, each long enough for its loops to be compiled with full profiles, and a two-PE job through the
 * launcher, so that the launcher's classes are in the cache too. About ten seconds.
 */
@Command(name = "train", hidden = true, description = "the training run of the JVM's AOT cache (used by ./weft)")
public final class TrainCommand implements Callable<Integer> {
    /** The perftests, as perftest arguments (each run with -x shm and -x tcp). */
    static final List<List<String>> TESTS = List.of(
        List.of("-t", "tag_lat", "-s", "8", "-n", "20000", "-w", "2000"),
        List.of("-t", "tag_lat", "-s", "65536", "-n", "500", "-w", "100"),
        List.of("-t", "tag_bw", "-s", "8", "-n", "50000", "-w", "5000"),
        List.of("-t", "tag_bw", "-s", "1048576", "-n", "300", "-w", "30"),
        List.of("-t", "ucp_put_lat", "-s", "8", "-n", "20000", "-w", "2000"),
        List.of("-t", "ucp_get", "-s", "8", "-n", "20000", "-w", "2000"),
        List.of("-t", "ucp_fadd", "-s", "8", "-n", "20000", "-w", "2000"),
        List.of("-t", "ucp_am_lat", "-s", "8", "-n", "10000", "-w", "1000"),
        List.of("-t", "stream_lat", "-s", "8", "-n", "10000", "-w", "1000"));
    static final List<String> TRANSPORTS = List.of("shm", "tcp");

    @Option(names = "--no-job", description = "skip the two-PE job through the launcher")
    boolean noJob;

    @Option(names = "--quick", description = "a few iterations of each test (for tests of the cache's plumbing)")
    boolean quick;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    @Override
    public Integer call() {
        final PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        int failed = 0;
        for (final String tl : TRANSPORTS) {
            for (final List<String> test : TESTS) {
                final String[] args = java.util.stream.Stream.concat(
                    java.util.stream.Stream.of("-l", "-f", "-x", tl), test.stream()).toArray(String[]::new);
                if (quick) {
                    for (int i = 0; i < args.length - 1; i++) {
                        if (args[i].equals("-n") || args[i].equals("-w")) {
                            args[i + 1] = Long.toString(Math.max(1, Long.parseLong(args[i + 1]) / 100));
                        }
                    }
                }
                final int rc = new CommandLine(new PerftestCommand().output(quiet, quiet)).execute(args);
                if (rc != 0) {
                    failed++;
                    System.err.println("weft train: perftest " + String.join(" ", args) + " failed (exit " + rc + ")");
                }
            }
        }
        if (!noJob) {
            // read as the launcher reads it (RunArgs), so that the cache holds that path's classes
            final weft.tools.run.RunCommand run = weft.tools.run.RunCommand.parseFast("-n", "2", "--bind-to", "none",
                "--timeout", "60", TrainPe.class.getName());
            final int rc = run != null ? run.call() : 1;
            if (rc != 0) {
                failed++;
                System.err.println("weft train: the two-PE job failed (exit " + rc + ")");
            }
        }
        return failed == 0 ? 0 : 1;
    }
}
