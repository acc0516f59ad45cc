package weft.uct.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import weft.ucs.Status;
import weft.uct.Capability;
import weft.uct.Interface;
import weft.uct.InterfaceAttributes;
import weft.uct.IoVector;

/**
 * put and get at sizes 0 .. 1 MiB with unaligned local and remote offsets, through every class the
 * interface advertises (within its max sizes). Data is checked at the target through the peer
 * (with guard bytes on both sides) and fetched back with every get class.
 */
@Timeout(90)
class RmaConformanceTest {
    static final int[] SIZES = {0, 1, 7, 8, 9, 63, 64, 65, 4095, 4096, 65536, 1 << 20};
    private static final int GUARD = 16;
    private static final byte GUARD_BYTE = 0x5A;

    enum Put { SHORT, BCOPY, ZCOPY }

    enum Get { BCOPY, ZCOPY }

    static List<Put> putClasses(final InterfaceAttributes a, final long size) {
        final List<Put> l = new ArrayList<>();
        if (a.has(Capability.PUT_SHORT) && size <= a.putMaxShort()) {
            l.add(Put.SHORT);
        }
        if (a.has(Capability.PUT_BCOPY) && size <= a.putMaxBcopy()) {
            l.add(Put.BCOPY);
        }
        if (a.has(Capability.PUT_ZCOPY) && size <= a.putMaxZcopy()) {
            l.add(Put.ZCOPY);
        }
        return l;
    }

    static List<Get> getClasses(final InterfaceAttributes a, final long size) {
        final List<Get> l = new ArrayList<>();
        if (a.has(Capability.GET_BCOPY) && size <= a.getMaxBcopy()) {
            l.add(Get.BCOPY);
        }
        if (a.has(Capability.GET_ZCOPY) && size <= a.getMaxZcopy()) {
            l.add(Get.ZCOPY);
        }
        return l;
    }

    /** Puts {@code size} bytes of {@code src[srcOff..]} at region offset {@code roff}; returns the status. */
    static Status put(final Fixture f, final Put how, final MemorySegment src, final long srcOff, final int size,
                      final long roff) {
        final long raddr = f.raddr(roff);
        final String what = "put " + how + " of " + size + " bytes at region offset " + roff;
        return switch (how) {
            case SHORT -> f.retry(() -> f.ep.putShort(src, srcOff, size, raddr, f.rkey), what);
            case BCOPY -> {
                final long r = f.retryLength(() -> f.ep.putBcopy((dest, off, cap) -> {
                    if (cap < size) {
                        throw new AssertionError(what + ": packer capacity " + cap + " < " + size + " (putMaxBcopy "
                            + f.attrs.putMaxBcopy() + ") on " + f.kase);
                    }
                    MemorySegment.copy(src, srcOff, dest, off, size);
                    return size;
                }, raddr, f.rkey), what);
                if (r >= 0 && r != size) {
                    throw new AssertionError(what + " returned " + r);
                }
                yield Status.ofLength(r);
            }
            case ZCOPY -> f.complete(c -> f.ep.putZcopy(IoVector.of(src, srcOff, size), raddr, f.rkey, c), what);
        };
    }

    /** Gets {@code size} bytes at region offset {@code roff} into {@code dst[dstOff..]}; returns the status. */
    static Status get(final Fixture f, final Get how, final MemorySegment dst, final long dstOff, final int size,
                      final long roff) {
        final long raddr = f.raddr(roff);
        final String what = "get " + how + " of " + size + " bytes at region offset " + roff;
        return switch (how) {
            case BCOPY -> {
                final long[] pos = {dstOff};
                yield f.complete(c -> {
                    pos[0] = dstOff;
                    return f.ep.getBcopy((s, off, len) -> {
                        MemorySegment.copy(s, off, dst, pos[0], len);
                        pos[0] += len;
                    }, size, raddr, f.rkey, c);
                }, what);
            }
            case ZCOPY -> f.complete(c -> f.ep.getZcopy(IoVector.of(dst, dstOff, size), raddr, f.rkey, c), what);
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#all")
    void putAndGetEverySizeAtUnalignedOffsets(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            final InterfaceAttributes a = f.attrs;
            Assumptions.assumeTrue(!putClasses(a, 0).isEmpty() || !getClasses(a, 0).isEmpty(),
                c + " advertises neither put nor get");
            int checked = 0;
            long seq = 0;
            for (final int size : SIZES) {
              for (final long roff : new long[] {64, GUARD + 3 + (size % 5)}) { // aligned, then unaligned target
                final MemorySegment src = f.local(size + 16);
                final List<Put> puts = putClasses(a, size);
                for (final Put how : puts) {
                    seq++;
                    Patterns.fill(src, 5, size, seq); // unaligned source offset
                    f.peer.fill(roff - GUARD, size + 2L * GUARD, GUARD_BYTE);
                    final Status st = put(f, how, src, 5, size, roff);
                    assertEquals(Status.OK, st, () -> "put " + how + " of " + size + " bytes on " + c);
                    f.flush(Interface.FLUSH_REMOTE);
                    verifyTarget(f, roff, size, seq, "put " + how + " of " + size + " bytes");
                    checked++;
                    getBack(f, roff, size, seq, "after put " + how);
                }
                if (puts.isEmpty() && !getClasses(a, size).isEmpty()) {
                    seq++;
                    f.peer.write(roff, Patterns.bytes(size, seq)); // only gets: the peer writes the data
                    getBack(f, roff, size, seq, "of peer-written data");
                    checked++;
                }
              }
            }
            Assumptions.assumeTrue(checked > 0, c + ": no put/get class covers any test size");
        }
    }

    private static void verifyTarget(final Fixture f, final long roff, final int size, final long seq,
                                     final String what) {
        final byte[] back = f.peer.read(roff - GUARD, size + 2 * GUARD);
        for (int i = 0; i < GUARD; i++) {
            if (back[i] != GUARD_BYTE || back[GUARD + size + i] != GUARD_BYTE) {
                throw new AssertionError(what + " on " + f.kase + " changed a guard byte around the target");
            }
        }
        final int bad = Patterns.mismatch(back, GUARD, size, seq);
        if (bad >= 0) {
            throw new AssertionError(what + " on " + f.kase + ": target byte " + bad + " is wrong");
        }
    }

    private static void getBack(final Fixture f, final long roff, final int size, final long seq, final String what) {
        for (final Get how : getClasses(f.attrs, size)) {
            final MemorySegment dst = f.local(size + 16);
            dst.fill((byte) 0);
            final Status st = get(f, how, dst, 7, size, roff); // unaligned destination
            assertEquals(Status.OK, st, () -> "get " + how + " of " + size + " bytes " + what + " on " + f.kase);
            final long bad = Patterns.mismatch(dst, 7, size, seq);
            if (bad >= 0) {
                throw new AssertionError("get " + how + " of " + size + " bytes " + what + " on " + f.kase
                    + ": byte " + bad + " is wrong");
            }
            for (int i = 0; i < 7; i++) {
                if (dst.get(ValueLayout.JAVA_BYTE, i) != 0 || dst.get(ValueLayout.JAVA_BYTE, 7 + size + i) != 0) {
                    throw new AssertionError("get " + how + " of " + size + " bytes wrote outside its destination");
                }
            }
        }
    }
}
