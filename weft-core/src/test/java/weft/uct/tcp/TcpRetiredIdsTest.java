package weft.uct.tcp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ended connections are remembered for the whole retention period however many end (a fixed count of 1,024
 * used to forget the oldest, so a connector coming back after more ended could be served twice), forgotten
 * after it, and past the cap an unknown id is answered conservatively until the period has passed.
 */
class TcpRetiredIdsTest {
    private static final long RETAIN = 60_000_000_000L;
    private long now = 1_000;

    @Test
    void everyIdEndedWithinTheRetentionPeriodIsKnownThenForgotten() {
        final TcpRetiredIds ids = new TcpRetiredIds(RETAIN, () -> now);
        for (long i = 1; i <= 5_000; i++) {
            ids.add(i * 2 + 1);
            now += 1_000_000; // 5 s in all
        }
        for (long i = 1; i <= 5_000; i++) {
            assertTrue(ids.contains(i * 2 + 1), "id " + i);
            assertTrue(ids.mayHaveRetired(i * 2 + 1), "id " + i);
        }
        assertFalse(ids.contains(4), "never ended here");
        assertFalse(ids.mayHaveRetired(4), "nothing was forgotten early: an unknown id is unknown");
        now += RETAIN - 2_500 * 1_000_000L - 1; // the first half's period is over
        assertEquals(2_500, ids.size());
        assertFalse(ids.contains(3));
        assertTrue(ids.contains(2 * 5_000 + 1));
        now += RETAIN;
        assertEquals(0, ids.size());
        assertEquals(0, ids.forgottenEarly());
    }

    @Test
    void pastTheCapUnknownIdsCountAsPossiblyEndedUntilThePeriodPasses() {
        final TcpRetiredIds ids = new TcpRetiredIds(RETAIN, () -> now);
        for (long i = 0; i < TcpRetiredIds.CAP + 10; i++) {
            ids.add(i * 2 + 1);
        }
        assertEquals(TcpRetiredIds.CAP, ids.size());
        assertEquals(10, ids.forgottenEarly());
        assertFalse(ids.contains(1), "the oldest went first");
        assertTrue(ids.mayHaveRetired(1), "forgotten early: a resume with it is refused, never served afresh");
        assertTrue(ids.mayHaveRetired(4), "any unknown id, while the period lasts");
        assertFalse(ids.contains(4));
        now += RETAIN;
        assertFalse(ids.mayHaveRetired(4), "the period passed: a connector with an unknown id starts afresh");
        assertEquals(0, ids.size());
    }
}
