package weft.ucs.stats;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CountersTest {
    @Test
    void shouldCountEachCounterSeparately() {
        final Counters c = new Counters();
        for (final Counter k : Counter.values()) {
            assertEquals(0, c.get(k));
            assertFalse(k.doc().isBlank());
        }
        c.increment(Counter.PUTS);
        c.increment(Counter.PUTS);
        c.add(Counter.TX_BYTES, 4096);
        c.add(Counter.TX_BYTES, -96);
        assertEquals(2, c.get(Counter.PUTS));
        assertEquals(4000, c.get(Counter.TX_BYTES));
        assertEquals(0, c.get(Counter.GETS));
        final Map<Counter, Long> snap = c.snapshot();
        assertEquals(Counter.values().length, snap.size());
        assertEquals(2L, snap.get(Counter.PUTS));
        c.increment(Counter.PUTS);
        assertEquals(2L, snap.get(Counter.PUTS), "a snapshot is a copy");
        assertEquals("tx_bytes=4000 puts=3", c.toString(), "only non-zero counters, in declaration order");
        assertTrue(new Counters().toString().isEmpty());
        final Counters copy = c.copy();
        c.increment(Counter.PUTS);
        assertEquals(3, copy.get(Counter.PUTS), "a copy does not follow later counts");
        assertEquals(4000, copy.get(Counter.TX_BYTES));
        copy.increment(Counter.GETS);
        assertEquals(0, c.get(Counter.GETS), "nor does the original follow the copy");
    }
}
