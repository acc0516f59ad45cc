package weft.ucs;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatusTest {
    @Test
    void shouldRoundTripEveryCode() {
        for (final Status s : Status.values()) {
            assertSame(s, Status.of(s.code()), s.name());
        }
    }

    @Test
    void shouldMapUnknownCodesToInvalidParam() {
        for (final int code : new int[] {2, 100, -1, -13, -63, -64, -1000, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertSame(Status.INVALID_PARAM, Status.of(code), "code " + code);
        }
    }

    @Test
    void shouldKeepCodesUniqueAndStable() {
        assertEquals(0, Status.OK.code());
        assertEquals(1, Status.IN_PROGRESS.code());
        assertEquals(-2, Status.NO_RESOURCE.code());
        final Set<Integer> seen = new java.util.HashSet<>();
        for (final Status s : Status.values()) {
            assertTrue(seen.add(s.code()), "duplicate code " + s.code());
            assertFalse(s.description().isBlank());
        }
    }

    @Test
    void shouldDecodeLengthOrStatus() {
        assertSame(Status.OK, Status.ofLength(0));
        assertSame(Status.OK, Status.ofLength(123_456_789_012L));
        assertSame(Status.NO_RESOURCE, Status.ofLength(Status.NO_RESOURCE.code()));
        assertSame(Status.OUT_OF_RANGE, Status.ofLength(-28));
        // values outside int must not be narrowed into a success code: -(2^32 - 1) narrows to 1
        assertSame(Status.INVALID_PARAM, Status.ofLength(-4_294_967_295L));
        assertSame(Status.INVALID_PARAM, Status.ofLength(Long.MIN_VALUE));
        assertSame(Status.INVALID_PARAM, Status.ofLength(Integer.MIN_VALUE));
    }

    @Test
    void shouldClassifyErrors() {
        final Set<Status> notErrors = EnumSet.of(Status.OK, Status.IN_PROGRESS, Status.NO_RESOURCE, Status.BUSY);
        for (final Status s : Status.values()) {
            assertEquals(!notErrors.contains(s), s.isError(), s.name());
        }
    }

    @Test
    void shouldThrowOnlyForErrors() {
        assertDoesNotThrow(() -> WeftException.check(Status.OK, "x"));
        assertDoesNotThrow(() -> WeftException.check(Status.IN_PROGRESS, "x"));
        assertDoesNotThrow(() -> WeftException.check(Status.NO_RESOURCE, "x"));
        assertDoesNotThrow(() -> WeftException.check(Status.BUSY, "x"));
        final WeftException e = assertThrows(WeftException.class, () -> WeftException.check(Status.IO_ERROR, "open"));
        assertSame(Status.IO_ERROR, e.status());
        assertTrue(e.getMessage().contains("open failed"), e.getMessage());
        assertTrue(e.getMessage().contains(Status.IO_ERROR.description()), e.getMessage());
        assertTrue(e.getMessage().contains("IO_ERROR"), e.getMessage());
        final RuntimeException cause = new IllegalStateException("root");
        assertSame(cause, new WeftException(Status.CLOSED, "m", cause).getCause());
    }
}
