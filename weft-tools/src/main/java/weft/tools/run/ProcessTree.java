package weft.tools.run;

import weft.tools.ParentWatch;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The processes of a job: each PE (or its launch agent) and everything it started. Descendants
 * are recorded while they live, because once a parent dies its children are re-parented and no
 * longer found through it; a recorded {@link ProcessHandle} knows its start time, so a reused pid
 * is never signalled.
 */
final class ProcessTree {
    private final Set<ProcessHandle> seen = new LinkedHashSet<>();

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
