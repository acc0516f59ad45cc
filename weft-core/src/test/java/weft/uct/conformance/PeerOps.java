package weft.uct.conformance;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.lang.foreign.ValueLayout;

import weft.uct.AtomicOp;
import weft.uct.MemoryAtomics;

/** Memory operations the peer runs on its own region (CPU atomics and the fence reader). */
final class PeerOps {
    private static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();

    private PeerOps() {
    }

    /** {@code count} CPU atomic adds, yielding now and then so the other side interleaves. */
    static void localAdd(final MemorySegment mem, final long offset, final int width, final long value,
                         final int count) {
        for (int i = 0; i < count; i++) {
            if (width == 64) {
                MemoryAtomics.fetch64(AtomicOp.ADD, mem, offset, value);
            } else {
                MemoryAtomics.fetch32(AtomicOp.ADD, mem, offset, (int) value);
            }
            if ((i & 63) == 0) {
                Thread.yield();
            }
        }
    }

    /** Waits for the flag to equal {@code expect}, then checks the data words (acquire loads). */
    static String watch(final MemorySegment mem, final long dataOffset, final int words, final long flagOffset,
                        final long expect, final long timeoutMs) {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        long spins = 0;
        while ((long) I64.getAcquire(mem, flagOffset) != expect) {
            if (System.nanoTime() > deadline) {
                return "TIMEOUT flag=" + (long) I64.getAcquire(mem, flagOffset) + " expected " + expect;
            }
            if (++spins > 10_000) {
                Thread.yield();
            }
        }
        for (int i = 0; i < words; i++) {
            final long v = (long) I64.getAcquire(mem, dataOffset + 8L * i);
            if (v != expect) {
                return "BAD word " + i + " = " + v + " after the flag showed " + expect;
            }
        }
        return "OK";
    }
}
