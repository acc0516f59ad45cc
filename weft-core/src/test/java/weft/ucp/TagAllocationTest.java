package weft.ucp;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An 8-byte tag send and receive allocates nothing in steady state, on the expected path (receive
 * posted first) and the unexpected path (message first, then receive, with a TagInfo and without one,
 * where the request carries the sender's tag and length), over shm and tcp. Two workers
 * in one JVM, one thread progressing both (so the meter sees both sides).
 */
@Timeout(60)
@Tag("allocation") // runs in a fresh JVM: see the surefire "allocation" execution
class TagAllocationTest {
    private static final int N = 20_000;
    private static final long LIMIT = 400; // bytes for a whole window (3N pairs): steady state

    @ParameterizedTest
    // 32 KiB over shm: eager get; "sockaddr": the endpoint of a socket-address connect, once bound
    @ValueSource(strings = {"shm,self 8", "tcp,self 8", "shm,self 32768", "shm,self 8 sockaddr", "tcp,self 8 sockaddr"})
    void shortTagSendReceiveAllocatesNothing(final String set) {
        final String tls = set.split(" ")[0];
        final int n = Integer.parseInt(set.split(" ")[1]);
        final boolean sockaddr = set.endsWith("sockaddr");
        // shm's liveness check (every 200 ms) and the ucp keepalive round (every 500 ms), not per
        // operation, read /proc through cold capturing downcalls and allocate a few hundred bytes to a few
        // KB each time: pushed out of the measured window so that what is left is per-operation cost
        final Config cfg = Config.global().with("SHM_KEEPALIVE_INTERVAL", "100s").with("KEEPALIVE_INTERVAL", "10m");
        try (Context ctx = Context.builder().transports(tls.split(",")).config(cfg).build();
             Worker a = ctx.newWorker(); Worker b = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
            final Endpoint ab = sockaddr ? viaListener(a, b) : a.connect(b.address());
            final MemorySegment src = arena.allocate(n);
            final MemorySegment dst = arena.allocate(n);
            final TagInfo info = new TagInfo();
            final Runnable window = () -> {
                final long sum = expected(a, b, ab, src, dst, n) + unexpected(a, b, ab, src, dst, info, n)
                    + unexpected(a, b, ab, src, dst, null, n); // a receive without TagInfo: its own request
                assertEquals(3L * N * (N - 1) / 2, sum, "payloads");
            };
            AllocationMeter.fewestBytes(tls + " " + n + " B: " + N + " expected + " + N + " unexpected + " + N
                + " unexpected without TagInfo tag send/receive pairs", window, LIMIT, 30_000);
        }
    }

    /** An endpoint from a to b made by the non-blocking socket-address connect, bound and accepted. */
    private static Endpoint viaListener(final Worker a, final Worker b) {
        try (Listener l = b.listen(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0),
            ConnectionRequest::accept)) {
            final Endpoint ep = a.connect(l.address());
            final Request c = ep.connectRequest();
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (!c.isCompleted()) {
                a.progress();
                b.progress();
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the connect did not complete");
                }
            }
            assertEquals(Status.OK, c.status());
            c.release();
            return ep;
        }
    }

    private static long expected(final Worker a, final Worker b, final Endpoint ab, final MemorySegment src,
                                 final MemorySegment dst, final int n) {
        long sum = 0;
        for (int i = 0; i < N; i++) {
            final Request r = b.recvTag(dst, 0, n, 5, -1L);
            src.set(ValueLayout.JAVA_LONG, 0, i);
            final Request s = ab.sendTag(5, src, 0, n);
            long spins = 0;
            while (!r.isCompleted()) {
                a.progress();
                b.progress();
                if (++spins > 100_000_000L) {
                    throw new AssertionError("expected receive " + i + " did not complete");
                }
            }
            if (r.status() != Status.OK || s.status() != Status.OK) {
                throw new AssertionError("expected " + i + ": " + r.status() + " " + s.status());
            }
            r.release();
            s.release();
            sum += dst.get(ValueLayout.JAVA_LONG, 0);
        }
        return sum;
    }

    private static long unexpected(final Worker a, final Worker b, final Endpoint ab, final MemorySegment src,
                                   final MemorySegment dst, final TagInfo info, final int n) {
        long sum = 0;
        for (int i = 0; i < N; i++) {
            src.set(ValueLayout.JAVA_LONG, 0, i);
            final Request s = ab.sendTag(6, src, 0, n);
            long spins = 0;
            while (b.probeTag(6, -1L, false) == null) {
                a.progress();
                b.progress();
                if (++spins > 100_000_000L) {
                    throw new AssertionError("unexpected message " + i + " did not arrive");
                }
            }
            // without a TagInfo the (pooled, completed) request carries the sender's tag and length
            final Request r = b.recvTag(dst, 0, n, 6, -1L, info, null);
            if (!r.isCompleted() || r.status() != Status.OK
                || (info != null ? info.length() != n || info.senderTag() != 6 : r.length() != n || r.senderTag() != 6)) {
                throw new AssertionError("unexpected " + i + ": " + r + " " + info);
            }
            r.release();
            s.release();
            sum += dst.get(ValueLayout.JAVA_LONG, 0);
        }
        return sum;
    }
}
