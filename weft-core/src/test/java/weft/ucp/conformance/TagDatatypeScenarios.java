package weft.ucp.conformance;

import weft.ucs.Status;
import weft.ucp.GenericDatatype;
import weft.ucp.Request;
import weft.ucp.TagInfo;
import weft.uct.IoVector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Tag scenarios with non-contiguous data: iov and generic datatypes on every send and receive path; run by
 * {@link TagConformanceTest} over every transport set and mode.
 */
public final class TagDatatypeScenarios {
    private TagDatatypeScenarios() {
    }

    /** A generic datatype over a segment that checks its pieces come in order and without overlap. */
    static final class SegmentType implements GenericDatatype {
        static final class State {
            final MemorySegment seg;
            long next;

            State(final MemorySegment seg) {
                this.seg = seg;
            }
        }

        @Override
        public void pack(final Object state, final long position, final MemorySegment dst, final long dstOffset,
                         final long length) {
            final State s = (State) state;
            if (position != s.next) {
                throw new IllegalStateException("pack at " + position + ", expected " + s.next);
            }
            MemorySegment.copy(s.seg, position, dst, dstOffset, length);
            s.next += length;
        }

        @Override
        public void unpack(final Object state, final long position, final MemorySegment src, final long srcOffset,
                           final long length) {
            final State s = (State) state;
            if (position != s.next) {
                throw new IllegalStateException("unpack at " + position + ", expected " + s.next);
            }
            MemorySegment.copy(src, srcOffset, s.seg, position, length);
            s.next += length;
        }
    }

    /** Splits {@code seg[0,n)} into uneven pieces (with an empty one), alternating between two layouts. */
    static IoVector split(final MemorySegment seg, final long n, final boolean other) {
        final IoVector v = new IoVector(2);
        if (n < 4) {
            return v.add(seg, 0, 0).add(seg, 0, n);
        }
        final long a = other ? 1 : n / 3;
        final long b = other ? n / 2 : 3;
        v.add(seg, 0, a).add(seg, a, 0).add(seg, a, b).add(seg, a + b, n - a - b);
        return v;
    }

    /**
     * iov and generic datatypes on every send and receive path (short, bcopy, multi-fragment,
     * rendezvous; expected and unexpected), in every combination with contiguous, and truncation into
     * an iov.
     */
    public static final class Datatypes implements Scenario {
        private static final SegmentType TYPE = new SegmentType();
        private static final String[] COMBOS = {"iov->contig", "contig->iov", "generic->generic", "iov->generic",
            "generic->iov", "contig->generic"};

        @Override
        public void run(final Pe pe) {
            final long[] sizes = TagScenarios.protocolSizes(pe);
            for (int c = 0; c < COMBOS.length; c++) {
                final boolean expected = c % 2 == 0;
                final String[] sr = COMBOS[c].split("->");
                final List<Request> rs = new ArrayList<>();
                final MemorySegment[] dst = new MemorySegment[sizes.length];
                final SegmentType.State[] states = new SegmentType.State[sizes.length];
                final TagInfo[] infos = new TagInfo[sizes.length];
                final long base = 0xC000 + 0x100L * c;
                if (pe.rank() == 1 && expected) {
                    post(pe, sr[1], sizes, dst, states, infos, rs, base);
                }
                pe.barrier();
                if (pe.rank() == 0) {
                    for (int i = 0; i < sizes.length; i++) {
                        final long n = sizes[i];
                        final MemorySegment src = pe.pattern(n, 600 + i + 16 * c);
                        rs.add(switch (sr[0]) {
                            case "iov" -> pe.ep().sendTag(base + i, split(src, n, false), null);
                            case "generic" -> pe.ep().sendTag(base + i, TYPE, new SegmentType.State(src), n, null);
                            default -> pe.ep().sendTag(base + i, src, 0, n);
                        });
                    }
                }
                if (!expected) {
                    pe.barrier();
                    if (pe.rank() == 1) {
                        post(pe, sr[1], sizes, dst, states, infos, rs, base);
                    }
                }
                TagScenarios.await(pe, rs, COMBOS[c] + (expected ? " expected" : " unexpected"));
                if (pe.rank() == 1) {
                    for (int i = 0; i < sizes.length; i++) {
                        final String what = COMBOS[c] + " " + sizes[i] + " (" + TagScenarios.proto(pe, sizes[i]) + ")";
                        assertEquals(sizes[i], infos[i].length(), what);
                        Pe.checkPattern(dst[i], sizes[i], 600 + i + 16 * c, what);
                        if (states[i] != null) {
                            assertEquals(sizes[i], states[i].next, what + ": unpacked bytes");
                        }
                    }
                }
                pe.barrier();
            }
            iovTruncation(pe);
            genericFailure(pe);
            syncDatatypes(pe);
        }

        /** Synchronous sends from an iov and a generic type: complete once matched, data intact. */
        private static void syncDatatypes(final Pe pe) {
            final long[] sizes = {8, 8193, pe.ep().rendezvousThreshold() + 3};
            final List<Request> rs = new ArrayList<>();
            final MemorySegment[] dst = new MemorySegment[2 * sizes.length];
            for (int i = 0; i < 2 * sizes.length; i++) {
                final long n = sizes[i % sizes.length];
                if (pe.rank() == 0) {
                    final MemorySegment src = pe.pattern(n, 800 + i);
                    rs.add(i < sizes.length ? pe.ep().sendTagSync(0xE100 + i, split(src, n, true), null)
                        : pe.ep().sendTagSync(0xE100 + i, TYPE, new SegmentType.State(src), n, null));
                } else {
                    dst[i] = pe.arena().allocate(n);
                    rs.add(pe.worker().recvTag(dst[i], 0, n, 0xE100 + i, -1L));
                }
            }
            TagScenarios.await(pe, rs, "sync datatype sends");
            if (pe.rank() == 1) {
                for (int i = 0; i < 2 * sizes.length; i++) {
                    Pe.checkPattern(dst[i], sizes[i % sizes.length], 800 + i, "sync datatype " + i);
                }
            }
            pe.barrier();
        }

        private static void post(final Pe pe, final String kind, final long[] sizes, final MemorySegment[] dst,
                                 final SegmentType.State[] states, final TagInfo[] infos, final List<Request> rs,
                                 final long base) {
            for (int i = 0; i < sizes.length; i++) {
                final long n = sizes[i];
                dst[i] = pe.arena().allocate(Math.max(1, n));
                infos[i] = new TagInfo();
                rs.add(switch (kind) {
                    case "iov" -> pe.worker().recvTag(split(dst[i], n, true), base + i, -1L, infos[i], null);
                    case "generic" -> pe.worker().recvTag(TYPE, states[i] = new SegmentType.State(dst[i]), n,
                        base + i, -1L, infos[i], null);
                    default -> pe.worker().recvTag(dst[i], 0, n, base + i, -1L, infos[i], null);
                });
            }
        }

        /** A message longer than the receiving iov: MESSAGE_TRUNCATED, nothing past the last entry. */
        private static void iovTruncation(final Pe pe) {
            final long[] sizes = {pe.ep().maxShort(), 8193, pe.ep().rendezvousThreshold() + 100};
            for (int i = 0; i < sizes.length; i++) {
                final long n = sizes[i];
                if (pe.rank() == 0) {
                    final Request q = pe.ep().sendTag(0xD000 + i, pe.pattern(n, 700 + i), 0, n);
                    assertEquals(Status.OK, pe.await(q));
                    q.release();
                } else {
                    final long cap = n - 7;
                    final MemorySegment b = pe.arena().allocate(cap + 64);
                    b.fill((byte) 0x5A);
                    final TagInfo info = new TagInfo();
                    final Request q = pe.worker().recvTag(split(b, cap, false), 0xD000 + i, -1L, info, null);
                    assertEquals(Status.MESSAGE_TRUNCATED, pe.await(q), "iov truncation " + n);
                    q.release();
                    assertEquals(n, info.length());
                    Pe.checkPattern(b, cap, 700 + i, "iov truncation " + n);
                    for (long g = cap; g < cap + 64; g++) {
                        assertEquals((byte) 0x5A, b.get(ValueLayout.JAVA_BYTE, g), "iov truncation wrote past " + cap);
                    }
                }
            }
            pe.barrier();
        }

        /** A throwing pack completes the send with IO_ERROR; the receiver still gets a whole message. */
        private static void genericFailure(final Pe pe) {
            final GenericDatatype bad = new GenericDatatype() {
                @Override
                public void pack(final Object s, final long p, final MemorySegment d, final long o, final long n) {
                    throw new IllegalStateException("user pack failed");
                }

                @Override
                public void unpack(final Object s, final long p, final MemorySegment src, final long o, final long n) {
                    throw new IllegalStateException("user unpack failed");
                }
            };
            final long n = 8193;
            if (pe.rank() == 0) {
                final Request q = pe.ep().sendTag(0xE000, bad, null, n, null);
                assertEquals(Status.IO_ERROR, pe.await(q), "send with a throwing pack");
                q.release();
                final Request q2 = pe.ep().sendTag(0xE001, pe.pattern(n, 9), 0, n);
                assertEquals(Status.OK, pe.await(q2));
                q2.release();
            } else {
                final MemorySegment b = pe.arena().allocate(n);
                final TagInfo info = new TagInfo();
                Request q = pe.worker().recvTag(b, 0, n, 0xE000, -1L, info, null);
                assertEquals(Status.OK, pe.await(q), "the peer of a failed pack still gets the message");
                q.release();
                assertEquals(n, info.length());
                q = pe.worker().recvTag(bad, null, n, 0xE001, -1L, null, null);
                assertEquals(Status.IO_ERROR, pe.await(q), "receive with a throwing unpack");
                q.release();
            }
            pe.barrier();
        }
    }
}
