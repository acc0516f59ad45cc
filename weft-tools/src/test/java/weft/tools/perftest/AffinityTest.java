package weft.tools.perftest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AffinityTest {
    @Test
    @Timeout(10)
    void shouldPinOnlyTheCallingThread() throws Exception {
        final int[] before = Affinity.currentCpus();
        final AtomicReference<int[]> pinned = new AtomicReference<>();
        final AtomicReference<Integer> rc = new AtomicReference<>();
        final int cpu = before[before.length - 1];
        final Thread t = new Thread(() -> {
            rc.set(Affinity.pinCurrentThread(cpu));
            pinned.set(Affinity.currentCpus());
        });
        t.start();
        t.join();
        assertEquals(0, rc.get());
        assertArrayEquals(new int[] {cpu}, pinned.get());
        assertArrayEquals(before, Affinity.currentCpus(), "the test thread keeps its CPUs");
    }

    @Test
    @Timeout(10)
    void shouldReportAnOfflineCpuAsAnError() throws Exception {
        final AtomicReference<Integer> rc = new AtomicReference<>();
        final Thread t = new Thread(() -> rc.set(Affinity.pinCurrentThread(1000)));
        t.start();
        t.join();
        assertTrue(rc.get() < 0, "EINVAL expected, got " + rc.get());
    }

    /** The status file's list and the kernel's mask agree (the list's parsing: CpusTest). */
    @Test
    void theStatusListIsTheAffinityMask() {
        assertArrayEquals(Affinity.affinityMask(), Affinity.allowedList());
    }
}
