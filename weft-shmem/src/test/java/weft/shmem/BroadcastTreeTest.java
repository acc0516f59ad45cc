package weft.shmem;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The broadcast's per-parent counters ({@link Collectives#radix}, {@link Collectives#fromParent}): on teams of
 * any size and any configured radix, every parent distance j * k^p of the k-nomial tree gets a counter of its
 * own among the {@link Collectives#BCAST_COUNTERS}; two distances sharing one would let a signal of one
 * broadcast count for another.
 */
class BroadcastTreeTest {
    @Test
    void everyParentDistanceHasItsOwnCounter() {
        final int[] large = {66, 100, 1000, 4097, 65_536, 1 << 20, 12_345_677, Integer.MAX_VALUE};
        for (int configured = 2; configured <= 70; configured++) {
            for (int n = 2; n <= 300; n++) {
                checkTree(configured, n);
            }
            for (final int n : large) {
                checkTree(configured, n);
            }
        }
    }

    private static void checkTree(final int configured, final int n) {
        final int k = Collectives.radix(configured, n);
        assertTrue(k >= 2 && k <= configured, "radix " + k + " for " + configured + " on " + n + " PEs");
        if (n - 1 <= Collectives.BCAST_COUNTERS) {
            assertEquals(configured, k, "a small team keeps the configured radix");
        }
        final Set<Integer> used = new HashSet<>();
        for (long m = 1; m < n; m *= k) {
            for (int j = 1; j < k && j * m < n; j++) {
                final int c = Collectives.fromParent(n, k, m, j);
                assertTrue(c >= 0 && c < Collectives.BCAST_COUNTERS, "counter " + c + " of distance " + j * m
                    + " (radix " + k + ", " + n + " PEs)");
                assertTrue(used.add(c), "distance " + j * m + " shares counter " + c + " (radix " + k + ", " + n + " PEs)");
            }
        }
    }
}
