package weft.ucs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogLimitTest {
    @Test
    void logsTheFirstAndThenAtPowersOfTwo() {
        assertFalse(LogLimit.due(0));
        assertTrue(LogLimit.due(1));
        assertTrue(LogLimit.due(2));
        assertFalse(LogLimit.due(3));
        assertTrue(LogLimit.due(4));
        assertFalse(LogLimit.due(1000));
        assertTrue(LogLimit.due(1L << 40));
        long lines = 0;
        for (long n = 1; n <= 1_000_000; n++) {
            if (LogLimit.due(n)) {
                lines++;
            }
        }
        assertEquals(20, lines, "a million malformed messages: 20 lines");
    }
}
