package weft.ucs;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class KeepaliveRampTest {
    @Test
    void gapsDoubleFromOneMillisecondToTheInterval() {
        final long interval = 500_000_000L;
        final List<Long> gaps = new ArrayList<>();
        long g = KeepaliveRamp.first(interval);
        for (int i = 0; i < 12; i++) {
            gaps.add(g / 1_000_000L);
            g = KeepaliveRamp.next(g, interval);
        }
        assertEquals(List.of(1L, 2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 500L, 500L, 500L), gaps);
    }

    @Test
    void anIntervalShorterThanTheFirstGapIsKept() {
        assertEquals(300_000L, KeepaliveRamp.first(300_000L));
        assertEquals(300_000L, KeepaliveRamp.next(300_000L, 300_000L));
    }
}
