package weft.shmem;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReductionTest {
    @Test
    void unsignedKindsCompareUnsignedAndNarrowKindsWrap() {
        assertEquals(-1L, Reduction.apply(Reduction.Kind.U64, Reduction.Op.MAX, -1L, 5L));
        assertEquals(-1L, Reduction.apply(Reduction.Kind.S64, Reduction.Op.MIN, -1L, 5L));
        final MemorySegment in = MemorySegment.ofArray(new byte[] {(byte) 200, 100});
        final MemorySegment out = MemorySegment.ofArray(new byte[1]);
        Reduction.combine2(Reduction.Kind.U8, Reduction.Op.MAX, in, in.asSlice(1), 1, out);
        assertEquals((byte) 200, out.get(ValueLayout.JAVA_BYTE, 0));
        Reduction.combine2(Reduction.Kind.S8, Reduction.Op.MAX, in, in.asSlice(1), 1, out);
        assertEquals((byte) 100, out.get(ValueLayout.JAVA_BYTE, 0));
        Reduction.combine2(Reduction.Kind.U8, Reduction.Op.SUM, in, in.asSlice(1), 1, out);
        assertEquals((byte) 44, out.get(ValueLayout.JAVA_BYTE, 0), "300 wraps to 44");
    }

    @Test
    void floatingPointKindsRefuseBitwiseOperators() {
        assertThrows(IllegalArgumentException.class,
            () -> Reduction.apply(Reduction.Kind.F64, Reduction.Op.XOR, 0, 0));
        final MemorySegment in = MemorySegment.ofArray(new double[] {1.5, -2, 4});
        final MemorySegment out = MemorySegment.ofArray(new double[1]);
        Reduction.combine2(Reduction.Kind.F64, Reduction.Op.PROD, in, in.asSlice(8), 1, out);
        Reduction.combine2(Reduction.Kind.F64, Reduction.Op.PROD, out, in.asSlice(16), 1, out); // out aliases a
        assertEquals(-12.0, out.get(ValueLayout.JAVA_DOUBLE, 0));
    }
}
