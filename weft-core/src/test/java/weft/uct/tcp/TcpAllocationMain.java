package weft.uct.tcp;

import weft.ucs.Status;
import weft.uct.AtomicOp;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Child JVM of {@code TcpRmaTest#shouldNotAllocateOnShortMessagesAndSmallRma}: two tcp interfaces,
 * rounds of am short + 8-byte put, get, fetch-add and post-add with completion; prints the bytes
 * this thread allocated over 10k warm rounds (best of up to ten windows) as {@code ALLOCATED n}.
 */
public final class TcpAllocationMain {
    private TcpAllocationMain() {
    }

    public static void main(final String[] args) {
        final TcpMemoryDomain md = TcpMemoryDomain.INSTANCE;
        try (UctWorker w1 = new UctWorker(); UctWorker w2 = new UctWorker(); Arena arena = Arena.ofConfined()) {
            final Interface a = TcpTestSupport.open(w1);
            final Interface b = TcpTestSupport.open(w2);
            final Endpoint ep = a.connect(b.deviceAddress(), b.interfaceAddress());
            final MemoryHandle target = md.allocate(4096);
            final RemoteKey rkey = md.unpackRkey(md.packRkey(target));
            final MemorySegment src = arena.allocate(8, 8);
            final MemorySegment res = arena.allocate(8, 8);
            final IoVector iov = IoVector.of(res, 0, 8);
            final long base = target.address();
            final long[] got = {0};
            b.setAmHandler(4, (d, o, l, f) -> {
                got[0]++;
                return Status.OK;
            });
            final Completion c = new Completion();
            final Runnable round = () -> {
                while (ep.amShort(4, 1, src, 0, 8) != Status.OK) {
                    a.progress();
                }
                check(ep.putShort(src, 0, 8, base, rkey), Status.OK);
                c.reset(2);
                check(ep.getZcopy(iov, base, rkey, c), Status.IN_PROGRESS);
                check(ep.atomic64Fetch(AtomicOp.ADD, 1, res, 0, base + 8, rkey, c), Status.IN_PROGRESS);
                check(ep.atomic64Post(AtomicOp.ADD, 1, base + 16, rkey), Status.OK);
                long spins = 0;
                while (!c.isDone()) {
                    a.progress();
                    b.progress();
                    if (++spins > 50_000_000L) {
                        throw new AssertionError("round did not complete");
                    }
                }
            };
            for (int i = 0; i < 20_000; i++) {
                round.run(); // warm up (JIT, lazily created buffers)
            }
            long allocated = Long.MAX_VALUE;
            for (int w = 0; w < 10 && allocated >= 512; w++) {
                final long before = TcpTestSupport.allocatedBytes();
                for (int i = 0; i < 10_000; i++) {
                    round.run();
                }
                allocated = Math.min(allocated, TcpTestSupport.allocatedBytes() - before);
            }
            System.out.println("ALLOCATED " + allocated + " received " + got[0]);
            rkey.close();
            md.deregister(target);
        }
    }

    private static void check(final Status got, final Status want) {
        if (got != want) {
            throw new AssertionError("expected " + want + " but got " + got);
        }
    }
}
