package weft.tools;

import weft.runtime.Runtime;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.MemoryMap;
import weft.ucp.Rkey;
import weft.ucp.Worker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A PE of {@link TrainCommand}'s job: what a first program does (bootstrap, address exchange, a tagged
 * message and a put), quietly. It exits non-zero if the message or the put did not arrive.
 */
public final class TrainPe {
    private TrainPe() {
    }

    public static void main(final String[] args) {
        try (Runtime rt = Runtime.init(); Context ctx = Context.create(Feature.TAG, Feature.RMA);
             Worker w = ctx.newWorker(); MemoryMap heap = ctx.memMap(4096, 0); Arena arena = Arena.ofConfined()) {
            final byte[][] workers = rt.allgather(w.address());
            final byte[][] keys = rt.allgather(heap.packRkey());
            final Endpoint ep = w.connect(workers[(rt.rank() + 1) % rt.size()]);
            final MemorySegment msg = arena.allocate(64);
            if (rt.rank() == 0) {
                msg.set(ValueLayout.JAVA_LONG, 0, 7);
                ep.sendTag(7, msg).await();
                try (Rkey rk = ep.unpackRkey(keys[(rt.rank() + 1) % rt.size()])) {
                    final MemorySegment v = arena.allocate(ValueLayout.JAVA_LONG);
                    v.set(ValueLayout.JAVA_LONG, 0, 42);
                    ep.put(v, 0, 8, rk.base(), rk).await();
                    ep.flush().await();
                }
            } else if (rt.rank() == 1) {
                w.recvTag(msg, 7, -1L).await();
                while (heap.segment().get(ValueLayout.JAVA_LONG, 0) != 42) {
                    w.progress();
                }
                if (msg.get(ValueLayout.JAVA_LONG, 0) != 7) {
                    System.exit(1);
                }
            }
            rt.barrier();
        }
    }
}
