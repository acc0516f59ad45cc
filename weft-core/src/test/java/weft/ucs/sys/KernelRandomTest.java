package weft.ucs.sys;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Kernel random bytes: every byte filled, different each call. */
class KernelRandomTest {
    @Test
    void fillsEveryByteAndDiffersEachCall() {
        final Set<String> seen = new HashSet<>();
        final int[] zeros = new int[4096];
        for (int round = 0; round < 64; round++) {
            final byte[] b = new byte[4096]; // a whole page of bytes
            KernelRandom.nextBytes(b);
            for (int i = 0; i < b.length; i++) {
                zeros[i] += b[i] == 0 ? 1 : 0;
            }
            assertTrue(seen.add(java.util.HexFormat.of().formatHex(b, 0, 16)), "a repeated prefix");
        }
        // a byte left unfilled stays zero in every round: chance of that for a random byte is 256^-64
        for (int i = 0; i < zeros.length; i++) {
            assertTrue(zeros[i] < 64, "byte " + i + " never filled");
        }
        final Set<Long> longs = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            longs.add(KernelRandom.nextLong());
        }
        assertEquals(100, longs.size());
        KernelRandom.nextBytes(new byte[0]);
    }
}
