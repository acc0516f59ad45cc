package weft.tools.run;

import weft.runtime.Runtime;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.Request;
import weft.ucp.Worker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A PE of {@link BarrierProgressJobTest}. Rank 1 posts a receive and goes straight into the launcher's
 * barrier; rank 0 sends a synchronous message, which completes only once rank 1 matched it and answered,
 * and meets the barrier after that. Rank 1 must progress its worker while it waits in the barrier, or the
 * two wait for each other until the bootstrap times out. Prints {@code ok RANK}.
 */
public final class BarrierProgressPe {
    private BarrierProgressPe() {
    }

    public static void main(final String[] args) {
        try (Runtime rt = Runtime.init(); Context ctx = Context.create(Feature.TAG); Worker w = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final byte[][] addrs = rt.allgather(w.address());
            final MemorySegment buf = arena.allocate(64);
            if (rt.rank() == 1) {
                final Request r = w.recvTag(buf, 0, 64, 5, -1L);
                rt.barrier(); // rank 0 is still in its synchronous send: it needs our match
                if (!r.isCompleted()) {
                    throw new IllegalStateException("the receive did not complete while rank 1 was in the barrier");
                }
                r.release();
                rt.barrier();
            } else {
                final Endpoint ep = w.connect(addrs[1]);
                buf.setString(0, "sync");
                final Request s = ep.sendTagSync(5, buf, 0, 64);
                s.await();
                s.release();
                rt.barrier();
                rt.barrier();
            }
            System.out.println("ok " + rt.rank());
        }
    }
}
