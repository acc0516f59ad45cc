package weft.tools.bench;

import java.util.List;

/**
 * Starts {@code sleep 600} as {@link UcxSide} starts ucx_perftest (under the parent-death signal), prints
 * its pid, and waits to be killed: {@link BenchCleanupTest} kills this JVM with SIGKILL and watches the
 * sleep end.
 */
public final class DeathSignalSpawnerMain {
    private DeathSignalSpawnerMain() {
    }

    public static void main(final String[] args) throws Exception {
        final Process p = new ProcessBuilder(UcxSide.withParentDeathSignal(List.of("sleep", "600")))
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        System.out.println("child " + p.pid());
        System.out.flush();
        p.waitFor();
    }
}
