package weft.uct.tcp;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The iovec ring a tcp channel writes from (addresses here are numbers only: nothing is dereferenced). */
class TcpWriteQueueTest {
    @Test
    void framesBackToBackInTheTxRingShareOneEntryAndUserMemoryDoesNot() {
        try (Arena arena = Arena.ofConfined()) {
            final TcpWriteQueue q = new TcpWriteQueue(arena);
            assertFalse(q.extendLast(1000, 10), "nothing to extend");
            q.push(1000, 10, true);
            assertTrue(q.extendLast(1010, 20), "contiguous tx bytes coalesce");
            assertFalse(q.extendLast(1040, 5), "a gap does not");
            q.push(5000, 100, false);
            assertFalse(q.extendLast(5100, 5), "user memory never coalesces");
            assertEquals(2, q.count);
            assertEquals(1000, TcpWriteQueue.address(q.headEntry()));
            assertEquals(30, TcpWriteQueue.length(q.headEntry()));
        }
    }

    @Test
    void consumingReleasesTxBytesUpToWhereTheWriteEnded() {
        try (Arena arena = Arena.ofConfined()) {
            final TcpWriteQueue q = new TcpWriteQueue(arena);
            q.push(1000, 30, true);
            q.push(5000, 100, false);
            q.push(2000, 8, true);
            assertFalse(q.consume(10, 3), "a partial write");
            assertEquals(1010, q.txReleasedTo);
            assertEquals(1010, TcpWriteQueue.address(q.headEntry()));
            assertEquals(20, TcpWriteQueue.length(q.headEntry()));
            assertFalse(q.consume(20 + 50, 3), "the tx entry and half the user memory");
            assertEquals(1030, q.txReleasedTo, "released to the end of the tx entry, not into user memory");
            assertEquals(5050, TcpWriteQueue.address(q.headEntry()));
            assertTrue(q.consume(50 + 8, 2), "the rest");
            assertEquals(2008, q.txReleasedTo);
            assertEquals(0, q.count);
            assertTrue(q.consume(0, 0));
            assertEquals(0, q.txReleasedTo, "nothing written releases nothing");
        }
    }

    @Test
    void growsInOrderUpToItsCapAndBatchesStopAtASplicedEntry() {
        try (Arena arena = Arena.ofConfined()) {
            final TcpWriteQueue q = new TcpWriteQueue(arena);
            for (int i = 0; i < 5; i++) {
                q.push(100 * i, 1, false);
            }
            assertTrue(q.consume(3, 3), "the head moves on: the ring wraps when it grows");
            for (int i = 5; i < TcpWriteQueue.CAP + 3; i++) {
                q.push(100 * i, 1, false);
            }
            assertEquals(TcpWriteQueue.CAP, q.capacity());
            assertTrue(q.full());
            assertEquals(0, q.free());
            for (int i = 3; i < TcpWriteQueue.CAP + 3; i++) {
                assertEquals(100 * i, TcpWriteQueue.address(q.headEntry()), "entry " + i + " in order");
                assertTrue(q.consume(1, 1));
            }
            q.push(1, 1, false);
            q.push(2, 1, false);
            q.markLastSpliceable();
            q.push(3, 1, false);
            assertEquals(1, q.batch(64), "written up to the spliced entry");
            assertTrue(q.consume(1, 1));
            assertTrue(q.headSpliceable());
            q.headSpliced();
            assertFalse(q.headSpliceable());
            assertEquals(2, q.batch(64));
            assertEquals(1, q.batch(1), "at most the batch asked for");
        }
    }
}
