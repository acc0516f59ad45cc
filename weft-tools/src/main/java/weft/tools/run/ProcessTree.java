package weft.tools.run;

import weft.tools.ParentWatch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The processes of a job: each PE (or its launch agent) and everything it started. Descendants
 * are recorded while they live, because once a parent dies its children are re-parented and no
 * longer found through it; a recorded {@link ProcessHandle} knows its start time, so a reused pid
 * is never signalled.
 */
final class ProcessTree {
    private final Set<ProcessHandle> seen = new LinkedHashSet<>();

    /** Records a process just started (its descendants, none yet, are found by {@link #recordAll}). */
    synchronized void add(final ProcessHandle root) {
        seen.add(root);
    }

    /**
     * Records every live one of {@code roots} and their current descendants in one pass over the process
     * table: a pass per root, as {@link ProcessHandle#descendants} makes, reads every process's status once per
     * PE, which a 64-PE job would do four thousand times a scan.
     */
    void recordAll(final List<ProcessHandle> roots) {
        final Map<Long, List<ProcessHandle>> children = new HashMap<>();
        ProcessHandle.allProcesses().forEach(p -> p.parent().ifPresent(
            parent -> children.computeIfAbsent(parent.pid(), k -> new ArrayList<>()).add(p)));
        final ArrayDeque<ProcessHandle> todo = new ArrayDeque<>();
        for (final ProcessHandle r : roots) {
            if (r.isAlive()) {
                todo.add(r);
            }
        }
        synchronized (this) {
            for (ProcessHandle p = todo.poll(); p != null; p = todo.poll()) {
                seen.add(p);
                todo.addAll(children.getOrDefault(p.pid(), List.of()));
            }
        }
    }

    /** Records {@code root} and its current descendants. */
    synchronized void record(final ProcessHandle root) {
        seen.add(root);
        root.descendants().forEach(seen::add);
    }

    /** Every process recorded so far that is still alive. */
    synchronized List<ProcessHandle> alive() {
        final List<ProcessHandle> out = new ArrayList<>();
        for (final ProcessHandle p : seen) {
            if (ParentWatch.isLive(p)) {
                out.add(p);
            }
        }
        return out;
    }

    /** Every process recorded so far. */
    synchronized List<ProcessHandle> all() {
        return new ArrayList<>(seen);
    }

    /** SIGTERM ({@code forcibly} false) or SIGKILL to {@code root}'s tree, children first. */
    void signal(final ProcessHandle root, final boolean forcibly) {
        record(root);
        final List<ProcessHandle> tree = new ArrayList<>(root.descendants().toList());
        tree.add(root);
        for (final ProcessHandle p : tree) {
            if (forcibly) {
                p.destroyForcibly();
            } else {
                p.destroy();
            }
        }
    }

    /** SIGKILL to every recorded process still alive (the last resort at the end of a job). */
    int killAllAlive() {
        int n = 0;
        for (final ProcessHandle p : alive()) {
            if (p.destroyForcibly()) {
                n++;
            }
        }
        return n;
    }
}
