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
}
