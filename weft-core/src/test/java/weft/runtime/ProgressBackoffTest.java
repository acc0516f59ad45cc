package weft.runtime;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ProgressBackoffTest {
    /** The sleep once nothing has happened for long (the cap). */
    private static long settled(final ProgressBackoff b) {
        long s = 0;
        for (int i = 0; i < 20; i++) {
            s = b.next(Long.MAX_VALUE);
        }
        return s;
    }

    @Test
    void sleepsDoubleUpToTheCapAndStartOverAfterWork() {
        final ProgressBackoff b = new ProgressBackoff(false);
        assertEquals(ProgressBackoff.MAX_NS, settled(b), "the cap");
        assertEquals(1_000, b.next(1_000), "never past the time left");
        b.reset();
        assertEquals(ProgressBackoff.FIRST_NS, b.next(Long.MAX_VALUE));
        assertEquals(2 * ProgressBackoff.FIRST_NS, b.next(Long.MAX_VALUE));
    }

    @Test
    void aCrowdedNodeBacksOffFurther() {
        assertEquals(ProgressBackoff.CROWDED_MAX_NS, settled(new ProgressBackoff(true)));
    }
}
