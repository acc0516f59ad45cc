package weft.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * Ends this process when another one (the process that started it) ends, however it ends: a helper
 * process Weft starts (the perftest server of {@code weft bench}) must not outlive its starter, and a
 * {@code kill -9} of the starter runs none of its clean-up. A daemon thread checks every 200 ms that the
 * watched process is still the one seen at start (same pid and start time, so a reused pid does not
 * count) and exits with code 1 when it is gone; shutdown hooks then close what this process holds.
 *
 * <pre>{@code
 * ParentWatch.exitWhenGone(ProcessHandle.current().parent().orElseThrow().pid(), "weft perftest server");
 * }</pre>
 */
public final class ParentWatch {
    private static final long POLL_MS = 200;

    private ParentWatch() {
    }

    /**
     * Starts watching {@code pid}; if it is gone already, exits at once.
     *
     * @param what names this process in the message printed when it exits
     */
    public static void exitWhenGone(final long pid, final String what) {
        final Optional<ProcessHandle> h = ProcessHandle.of(pid);
        final Instant started = h.flatMap(p -> p.info().startInstant()).orElse(null);
        final Thread t = new Thread(() -> {
            while (alive(pid, started)) {
                try {
                    Thread.sleep(POLL_MS);
                } catch (final InterruptedException e) {
                    return;
                }
            }
            System.err.println(what + ": process " + pid + " that started it has ended; exiting");
            System.exit(1);
        }, "weft-parent-watch");
        t.setDaemon(true);
        t.start();
    }

    private static boolean alive(final long pid, final Instant started) {
        final Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty() || !isLive(h.get())) {
            return false;
        }
        final Optional<Instant> now = h.get().info().startInstant();
        return started == null || now.isEmpty() || now.get().equals(started); // else: the pid was reused
    }

    /**
     * True while {@code p} runs: not a zombie, which has exited but whose parent has not collected it yet
     * (for an orphan, init, which may reap only every second or so, or a starter that never waits) and
     * which {@link ProcessHandle#isAlive} still counts alive.
     */
    public static boolean isLive(final ProcessHandle p) {
        if (!p.isAlive()) {
            return false;
        }
        try {
            final String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            final int end = stat.lastIndexOf(')'); // the command name may hold spaces and parentheses
            return end >= 0 && end + 2 < stat.length() && "ZX".indexOf(stat.charAt(end + 2)) < 0;
        } catch (final IOException e) {
            return false; // no /proc entry: gone
        }
    }
}
