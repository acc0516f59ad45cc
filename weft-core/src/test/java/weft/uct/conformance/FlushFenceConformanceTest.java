package weft.uct.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import weft.ucs.Status;
import weft.uct.Completion;
import weft.uct.Interface;
import weft.uct.conformance.RmaConformanceTest.Put;

/** flush (endpoint and interface, LOCAL and REMOTE) completes; fence orders put before put. */
@Timeout(90)
class FlushFenceConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#all")
    void flushLocalAndRemoteComplete(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            final List<Put> puts = RmaConformanceTest.putClasses(f.attrs, 4096);
            final MemorySegment src = f.local(4096);
            long seq = 100;
            for (final int flags : new int[] {Interface.FLUSH_LOCAL, Interface.FLUSH_REMOTE}) {
                for (final boolean onIface : new boolean[] {false, true}) {
                    seq++;
                    for (final Put how : puts) {
                        Patterns.fill(src, 0, 4096, seq);
                        assertEquals(Status.OK, RmaConformanceTest.put(f, how, src, 0, 4096, 64), "put " + how + " on " + c);
                    }
                    final String what = (onIface ? "interface" : "endpoint") + " flush("
                        + (flags == Interface.FLUSH_REMOTE ? "REMOTE" : "LOCAL") + ")";
                    final Completion done = new Completion();
                    final Status st = f.retry(() -> onIface ? f.iface.flush(flags, done.reset(1))
                        : f.ep.flush(flags, done.reset(1)), what);
                    if (st == Status.IN_PROGRESS) {
                        f.await(done, what);
                        assertEquals(Status.OK, done.status(), what + " completion on " + c);
                    } else {
                        assertEquals(Status.OK, st, what + " on " + c);
                    }
                    if (flags == Interface.FLUSH_REMOTE && !puts.isEmpty()) {
                        assertEquals(-1, Patterns.mismatch(f.peer.read(64, 4096), 0, 4096, seq),
                            "data at the target after " + what + " on " + c);
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("weft.uct.conformance.Case#all")
    void putFencePutIsSeenInOrder(final Case c) {
        try (Fixture f = Fixture.open(c)) {
            final int words = 512;
            final List<Put> big = RmaConformanceTest.putClasses(f.attrs, words * 8L);
            final List<Put> small = RmaConformanceTest.putClasses(f.attrs, 8);
            Assumptions.assumeFalse(big.isEmpty() || small.isEmpty(), c + " cannot put " + words * 8 + " bytes");
            final long dataOff = Peer.FENCE_BASE + 64;
            final long flagOff = Peer.FENCE_BASE;
            f.peer.fill(Peer.FENCE_BASE, 64 + words * 8L, (byte) 0);
            final MemorySegment a = f.local(words * 8L);
            final MemorySegment b = f.local(8);
            final int rounds = 30;
            for (int r = 1; r <= rounds; r++) {
                final long v = r;
                for (int i = 0; i < words; i++) {
                    a.setAtIndex(ValueLayout.JAVA_LONG, i, v);
                }
                b.set(ValueLayout.JAVA_LONG, 0, v);
                final Peer.Task reader = f.peer.watch(dataOff, words, flagOff, v, 5_000);
                final Put aHow = big.get(big.size() - 1); // the most asynchronous class first
                final Put bHow = small.get(0); // the most immediate class second
                assertEquals(Status.OK, RmaConformanceTest.put(f, aHow, a, 0, words * 8, dataOff), "put A on " + c);
                final Status fs = (r & 1) == 0 ? f.ep.fence() : f.iface.fence();
                assertEquals(Status.OK, fs, "fence on " + c);
                assertEquals(Status.OK, RmaConformanceTest.put(f, bHow, b, 0, 8, flagOff), "put B on " + c);
                Waits.until(reader::isDone, f::progress, 10_000, () -> "the fence reader on " + c);
                assertEquals("OK", reader.result(), "round " + v + ": put A (" + aHow + "), fence, put B (" + bHow
                    + ") on " + c + ": a reader that saw B must see A");
            }
        }
    }
}
