package weft.ucp.conformance;

import weft.ucs.Status;
import weft.ucp.Request;
import weft.ucp.TagInfo;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Tag-matching scenarios; each is run by {@link TagConformanceTest} over every transport set and mode. */
public final class TagScenarios {
    private TagScenarios() {
    }

    /** Sizes around every protocol threshold of the endpoint, both directions, expected receives. */
    public static final class Thresholds implements Scenario {
        @Override
        public void run(final Pe pe) {
            final long s = pe.ep().maxShort();
            final long r = pe.ep().rendezvousThreshold();
            final long[] sizes = {0, 1, 7, 8, s - 1, s, s + 1, 8191, 8192, 8193, 16384 + 5, r - 1, r, r + 1,
                3 * r + 17, 1 << 20};
            for (int dir = 0; dir < 2; dir++) {
                for (final long n : sizes) {
                    if (n < 0) {
                        continue;
                    }
                    final int seed = (int) n + dir;
                    if (pe.rank() == dir) {
                        final MemorySegment src = pe.pattern(n, seed);
                        final Request q = pe.ep().sendTag(1000 + n, src, 0, n);
                        assertEquals(Status.OK, pe.await(q), "send " + n);
                        q.release();
                    } else {
                        final MemorySegment dst = pe.arena().allocate(Math.max(1, n), 64);
                        final TagInfo info = new TagInfo();
                        final Request q = pe.worker().recvTag(dst, 0, n, 1000 + n, -1L, info, null);
                        assertEquals(Status.OK, pe.await(q), "recv " + n);
                        q.release();
                        assertEquals(n, info.length(), "length " + n);
                        Pe.checkPattern(dst, n, seed, "recv " + n);
                    }
                }
                pe.barrier();
            }
        }
    }
}
