package weft.shmem;

import org.junit.jupiter.api.Test;
import weft.ucs.config.Config;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShmemConfigTest {
    private static long size(final Map<String, String> env) {
        return ShmemConfig.symmetricSize(env::get, Config.fromMap(env), 4096);
    }

    @Test
    void readsSuffixesAndFractionsFromEitherVariable() {
        assertEquals(256L << 20, size(Map.of()), "the default");
        assertEquals(64L << 20, size(Map.of("SHMEM_SYMMETRIC_SIZE", "64M")));
        assertEquals(3L << 29, size(Map.of("SHMEM_SYMMETRIC_SIZE", "1.5g")));
        assertEquals(8192, size(Map.of("SHMEM_SYMMETRIC_SIZE", "8k")));
        assertEquals(10L << 20, size(Map.of("WEFT_SYMMETRIC_SIZE", "10m")));
        assertEquals(1L << 20, size(Map.of("SHMEM_SYMMETRIC_SIZE", "1m", "WEFT_SYMMETRIC_SIZE", "10m")),
            "the standard variable wins");
    }

    @Test
    void garbageIsAClearError() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> size(Map.of("SHMEM_SYMMETRIC_SIZE", "lots")));
        assertTrue(e.getMessage().contains("SHMEM_SYMMETRIC_SIZE='lots' is not a size"), e.getMessage());
        final IllegalArgumentException w = assertThrows(IllegalArgumentException.class,
            () -> size(Map.of("WEFT_SYMMETRIC_SIZE", "12q")));
        assertTrue(w.getMessage().contains("WEFT_SYMMETRIC_SIZE"), w.getMessage());
        final IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
            () -> size(Map.of("SHMEM_SYMMETRIC_SIZE", "100")));
        assertTrue(small.getMessage().contains("is out of range"), small.getMessage());
        assertThrows(IllegalArgumentException.class, () -> size(Map.of("SHMEM_SYMMETRIC_SIZE", "inf")));
        assertThrows(IllegalArgumentException.class, () -> size(Map.of("SHMEM_SYMMETRIC_SIZE", "-5m")));
    }

    /** Waits sleep only on an oversubscribed node, unless a time is configured (then it holds everywhere). */
    @Test
    void waitBlockAfterAutoSleepsOnlyWhenThePesOutnumberTheCpus() {
        final long auto = Config.fromMap(Map.of()).get(ShmemConfig.WAIT_BLOCK_AFTER);
        assertEquals(-1L, auto, "the default is auto");
        final int cpus = weft.ucs.Cpus.online();
        assertEquals(Long.MAX_VALUE, ShmemConfig.blockAfterNs(auto, cpus), "a PE per CPU never sleeps");
        assertEquals(ShmemConfig.OVERSUBSCRIBED_BLOCK_AFTER_NS, ShmemConfig.blockAfterNs(auto, cpus + 1));
        final long set = Config.fromMap(Map.of("WEFT_SHMEM_WAIT_BLOCK_AFTER", "3ms")).get(ShmemConfig.WAIT_BLOCK_AFTER);
        assertEquals(3_000_000L, ShmemConfig.blockAfterNs(set, 1));
        assertEquals(3_000_000L, ShmemConfig.blockAfterNs(set, cpus + 1));
    }

    /** Waits spin briefly before they yield on an oversubscribed node, long elsewhere, unless a count is configured. */
    @Test
    void waitSpinsAutoAreFewWhenThePesOutnumberTheCpus() {
        final int auto = Config.fromMap(Map.of()).get(ShmemConfig.WAIT_SPINS);
        assertEquals(-1, auto, "the default is auto");
        final int cpus = weft.ucs.Cpus.online();
        assertEquals(ShmemConfig.SPINS, ShmemConfig.waitSpins(auto, cpus));
        assertEquals(ShmemConfig.OVERSUBSCRIBED_SPINS, ShmemConfig.waitSpins(auto, cpus + 1));
        final int set = Config.fromMap(Map.of("WEFT_SHMEM_WAIT_SPINS", "100")).get(ShmemConfig.WAIT_SPINS);
        assertEquals(100, ShmemConfig.waitSpins(set, 1));
        assertEquals(100, ShmemConfig.waitSpins(set, cpus + 1));
        final weft.ucs.WeftException bad = assertThrows(weft.ucs.WeftException.class,
            () -> Config.fromMap(Map.of("WEFT_SHMEM_WAIT_SPINS", "-3")).get(ShmemConfig.WAIT_SPINS));
        assertTrue(bad.getMessage().contains("WEFT_SHMEM_WAIT_SPINS"), bad.getMessage());
    }
}
