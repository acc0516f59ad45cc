package weft.uct.cma;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The resume cursor that lets a partial process_vm transfer continue where the kernel stopped. */
class CmaOpTest {
    @Test
    void shouldResumeInsideAndAcrossIovEntries() {
        final CmaOp op = new CmaOp(4);
        op.length[0] = 10;
        op.length[1] = 5;
        op.length[2] = 20;
        op.iovCount = 3;
        op.total = 35;
        op.advance(3); // partial inside entry 0
        assertEquals(0, op.entry);
        assertEquals(3, op.entryOffset);
        op.advance(7); // exactly to the end of entry 0
        assertEquals(1, op.entry);
        assertEquals(0, op.entryOffset);
        op.advance(9); // all of entry 1 and 4 bytes of entry 2
        assertEquals(2, op.entry);
        assertEquals(4, op.entryOffset);
        assertEquals(19, op.done);
        op.advance(16);
        assertEquals(35, op.done);
        assertEquals(3, op.entry);
        op.clear();
        assertEquals(CmaOp.NONE, op.kind);
        assertEquals(0, op.done);
        assertEquals(0, op.entry);
    }
}
