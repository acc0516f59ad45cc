package weft.uct.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Resource hygiene: open file descriptors ({@code /proc/self/fd}), memfd mappings, live threads and files in
 * {@code /dev/shm} whose name contains "weft". Take a {@link Snapshot} before a test and
 * {@link #assertBackTo} after it. Resources held by live peer processes of the harness (their
 * pipe ends and reader threads) and JDK/JUnit infrastructure threads are not counted, so a cached
 * peer does not look like a leak. Usable by any test.
 */
public final class Resources {
    private static final Path FD_DIR = Path.of("/proc/self/fd");
    private static final Path SHM_DIR = Path.of("/dev/shm");
    /** What the listing's own directory descriptor points to. */
    private static final String OWN_FD_DIR = "/proc/" + ProcessHandle.current().pid() + "/fd";
    /** Peer-owned fds and threads; maintained by {@link PeerCache}. */
    private static final Set<Integer> OWNED_FDS = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final Set<Thread> OWNED_THREADS = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private Resources() {
    }

    /** What a test may not leak. */
    public record Snapshot(Map<Integer, String> fds, Set<Thread> threads, Set<String> shmFiles, long sharedMappings) {
        /** Human-readable differences from {@code before} (empty if none that count). */
        String diff(final Snapshot before) {
            final StringBuilder sb = new StringBuilder();
            // a leak is a descriptor that was not there before (number and target: a number may be reused);
            // one closed meanwhile by something else in the JVM (a finished process's pipe) is none
            final Map<Integer, String> added = new TreeMap<>(fds);
            added.entrySet().removeIf(e -> e.getValue().equals(before.fds.get(e.getKey())));
            if (!added.isEmpty()) {
                sb.append("open fds ").append(before.fds.size()).append(" -> ").append(fds.size())
                    .append(" (new ").append(added).append("); ");
            }
            final Set<Thread> newThreads = new HashSet<>(threads);
            newThreads.removeAll(before.threads);
            if (!newThreads.isEmpty()) {
                sb.append("new live threads ").append(newThreads.stream().map(Thread::getName).toList()).append("; ");
            }
            if (sharedMappings > before.sharedMappings) {
                sb.append("memfd mappings ").append(before.sharedMappings).append(" -> ").append(sharedMappings)
                    .append("; ");
            }
            if (!before.shmFiles.containsAll(shmFiles)) {
                sb.append("/dev/shm weft files ").append(before.shmFiles).append(" -> ").append(shmFiles).append("; ");
            }
            return sb.toString();
        }
    }

    /** The current state. */
    public static Snapshot take() {
        final Map<Integer, String> fds = new TreeMap<>(openFds());
        fds.keySet().removeAll(OWNED_FDS);
        final Set<Thread> threads = new HashSet<>();
        for (final Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !OWNED_THREADS.contains(t) && !isInfrastructure(t.getName())) {
                threads.add(t);
            }
        }
        final Set<String> shm = new TreeSet<>();
        try (Stream<Path> s = Files.list(SHM_DIR)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.contains("weft")).forEach(shm::add);
        } catch (final IOException e) {
            shm.add("(cannot list /dev/shm: " + e + ")");
        }
        return new Snapshot(fds, threads, shm, sharedMappings());
    }

    /** Shared-memory mappings of this process ({@code memfd:} lines of /proc/self/maps): unmapped on close. */
    static long sharedMappings() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("/memfd:")).count();
        } catch (final IOException e) {
            return -1;
        }
    }

    /** JDK and JUnit threads that come and go on their own (process reaper pool, timeout scheduler). */
    private static boolean isInfrastructure(final String name) {
        return name.startsWith("process reaper") || name.startsWith("junit-") || name.equals("Attach Listener")
            || name.startsWith("ForkJoinPool");
    }

    /**
     * Fails unless fds, threads and shm files are back to {@code before}, allowing
     * {@code graceMs} for asynchronous teardown.
     */
    public static void assertBackTo(final Snapshot before, final String what, final long graceMs) {
        final long deadline = System.nanoTime() + graceMs * 1_000_000L;
        String diff;
        while (!(diff = take().diff(before)).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("resource leak after " + what + ": " + diff);
            }
            LockSupport.parkNanos(10_000_000);
        }
    }

    /** Numbers of the open file descriptors of this process. */
    public static Set<Integer> fdNumbers() {
        return new TreeSet<>(openFds().keySet());
    }

    /**
     * Open file descriptors and their targets, read while the directory is open; the listing's
     * own descriptor (a directory under /proc) is left out.
     */
    private static Map<Integer, String> openFds() {
        final Map<Integer, String> out = new TreeMap<>();
        try (java.nio.file.DirectoryStream<Path> dir = Files.newDirectoryStream(FD_DIR)) {
            for (final Path p : dir) {
                String target;
                try {
                    target = Files.readSymbolicLink(p).toString();
                } catch (final IOException e) {
                    continue; // closed meanwhile
                }
                if (!target.equals(OWN_FD_DIR)) {
                    out.put(Integer.parseInt(p.getFileName().toString()), target);
                }
            }
        } catch (final IOException e) {
            throw new AssertionError("cannot list " + FD_DIR, e);
        }
        return out;
    }

    static void own(final Set<Integer> fds, final Thread thread) {
        OWNED_FDS.addAll(fds);
        OWNED_THREADS.add(thread);
    }

    static void disown(final Set<Integer> fds, final Thread thread) {
        OWNED_FDS.removeAll(fds);
        OWNED_THREADS.remove(thread);
    }
}
