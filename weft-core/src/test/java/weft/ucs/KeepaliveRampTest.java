package weft.ucs;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeepaliveRampTest {
    private static final long MS = 1_000_000L;

    /** The times (ms) at which rounds are held over {@code untilMs}, polling every 100 us from {@code t0}. */
    private static List<Long> rounds(final KeepaliveRamp ramp, final long t0, final long untilMs) {
        final List<Long> at = new ArrayList<>();
        for (long t = t0; t <= t0 + untilMs * MS; t += MS / 10) {
            if (ramp.due(t)) {
                at.add((t - t0) / MS);
            }
        }
        return at;
    }

    @Test
    void gapsDoubleFromOneMillisecondToTheInterval() {
        final long t0 = 123_456_789L;
        final KeepaliveRamp ramp = new KeepaliveRamp(500 * MS, t0);
        // gaps 1, 2, 4 ... 256, then 500
        assertEquals(List.of(1L, 3L, 7L, 15L, 31L, 63L, 127L, 255L, 511L, 1011L, 1511L), rounds(ramp, t0, 1600));
    }

    @Test
    void aNewPeerRestartsTheRampFromTheLastRound() {
        final long t0 = 0;
        final KeepaliveRamp ramp = new KeepaliveRamp(500 * MS, t0);
        rounds(ramp, t0, 1100); // ramped up: the last round at 1011 ms, the next due at 1511 ms
        assertEquals(89 * MS, ramp.sinceLastRound(1100 * MS));
        assertFalse(ramp.due(1100 * MS));
        ramp.restart();
        assertTrue(ramp.due(1100 * MS), "a round at once: more than the first gap since the last one");
        assertFalse(ramp.due(1100 * MS + MS / 2));
        assertTrue(ramp.due(1102 * MS), "then 2 ms later");
    }

    @Test
    void theLastStepReachesAnOddIntervalExactly() {
        final KeepaliveRamp ramp = new KeepaliveRamp(3 * MS + 1, 0);
        assertTrue(ramp.due(MS));
        assertTrue(ramp.due(3 * MS), "gap 2 ms");
        assertFalse(ramp.due(6 * MS));
        assertTrue(ramp.due(6 * MS + 1), "then the interval, not twice the gap");
        assertFalse(ramp.due(9 * MS + 1));
        assertTrue(ramp.due(9 * MS + 2));
    }

    @Test
    void anEndlessIntervalNeverOverflowsTheGap() {
        final KeepaliveRamp ramp = new KeepaliveRamp(Long.MAX_VALUE, 0);
        long t = 0;
        long gap = MS;
        for (int i = 0; i < 62; i++) { // gaps 1 ms, 2 ms, ... up to 2^61 ms would overflow a plain doubling
            t += gap;
            assertFalse(ramp.due(t - 1), "round " + i);
            assertTrue(ramp.due(t), "round " + i);
            gap = gap > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : gap * 2;
            if (t > Long.MAX_VALUE - gap) {
                break; // the next round lies past the clock's range: nothing more to check
            }
        }
        assertFalse(ramp.due(t + MS), "the gap stayed positive and long");
    }

    @Test
    void anIntervalShorterThanTheFirstGapIsKept() {
        final KeepaliveRamp ramp = new KeepaliveRamp(300_000L, 0);
        assertFalse(ramp.due(299_999L));
        assertTrue(ramp.due(300_000L));
        assertFalse(ramp.due(599_999L));
        assertTrue(ramp.due(600_000L));
    }
}
