package weft.tools.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** A job's process tree is found in one pass over the process table, grandchildren included, and killed. */
class ProcessTreeTest {
    /** A shell that starts a child shell that starts a sleep, and then waits: three levels. */
    private static Process threeLevels() throws IOException {
        return new ProcessBuilder("sh", "-c", "sh -c 'sleep 60 & wait' & wait").start();
    }

    @Test
    void recordAllFindsEveryLevelOfEveryRootAndKillAllAliveEndsThem() throws Exception {
        final ProcessTree tree = new ProcessTree();
        final List<Process> roots = List.of(threeLevels(), threeLevels());
        final List<ProcessHandle> handles = new ArrayList<>();
        for (final Process p : roots) {
            tree.add(p.toHandle());
            handles.add(p.toHandle());
        }
        try {
            // the shells start their children asynchronously: scan until both trees show three levels
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (tree.all().size() < 6 && System.nanoTime() < deadline) {
                tree.recordAll(handles);
                Thread.sleep(20);
            }
            assertEquals(6, tree.all().size(), "two roots, their child shells and sleeps: " + tree.all());
            for (final ProcessHandle h : handles) {
                assertTrue(tree.all().containsAll(h.descendants().toList()), "every descendant of " + h.pid());
            }
            assertEquals(6, tree.killAllAlive());
            for (final ProcessHandle h : tree.all()) {
                h.onExit().get(30, TimeUnit.SECONDS);
                assertTrue(!h.isAlive(), h.pid() + " still alive");
            }
        } finally {
            roots.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void aDeadRootIsNotScanned() throws Exception {
        final ProcessTree tree = new ProcessTree();
        final Process p = new ProcessBuilder("true").start();
        p.waitFor(30, TimeUnit.SECONDS);
        tree.recordAll(List.of(p.toHandle()));
        assertEquals(List.of(), tree.all());
    }
}
