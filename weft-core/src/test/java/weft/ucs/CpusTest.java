package weft.ucs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpusTest {
    @Test
    void countsTheKernelsCpuLists() {
        assertEquals(1, Cpus.count("0\n"));
        assertEquals(2, Cpus.count("0-1\n"));
        assertEquals(7, Cpus.count("0-3,8,10-11"));
        assertThrows(IllegalArgumentException.class, () -> Cpus.count("3-1"));
        assertThrows(IllegalArgumentException.class, () -> Cpus.count("zero"));
    }

    @Test
    void listsTheCpusOfAKernelCpuList() {
        org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {0, 1, 2, 3, 8, 10, 11}, Cpus.list("0-3,8,10-11"));
        org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {5}, Cpus.list(" 5\n"));
        assertThrows(IllegalArgumentException.class, () -> Cpus.list("3-1"));
        assertThrows(IllegalArgumentException.class, () -> Cpus.list("x"));
    }

    @Test
    void theNodeHasAtLeastTheProcessesCpus() {
        final int n = Cpus.online();
        assertTrue(n >= Runtime.getRuntime().availableProcessors(), n + " online CPUs");
        assertFalse(Cpus.oversubscribed(n));
        assertTrue(Cpus.oversubscribed(n + 1));
    }

    @Test
    void crowdedFollowsTheLastRecordedCountOfLocalProcesses() {
        final int n = Cpus.online();
        try {
            Cpus.localProcesses(n + 1);
            assertTrue(Cpus.crowded());
            Cpus.localProcesses(n);
            assertFalse(Cpus.crowded());
        } finally {
            Cpus.localProcesses(1);
        }
        assertFalse(Cpus.crowded());
    }
}
