package weft.tools;

import weft.runtime.Runtime;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucp.Worker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A PE of {@link TrainCommand}'s training: what a first program does (bootstrap, address exchange, a tagged
 * message and a put), quietly. Each PE sends to and puts into the next rank and hears from the previous one,
 * so a job of one PE (the training JVM itself, see {@code train --pe}) talks to itself. It exits non-zero
 * if the message or the put did not arrive.
 */
public final class TrainPe {
    private static final long TAG = 7;

    private TrainPe() {
    }

    public static void main(final String[] args) {
        if (!exchange()) {
            System.exit(1);
        }
    }

    /** Joins the job this process runs in and passes a message and a put round its ranks; true if both arrived. */
    static boolean exchange() {
        try (Runtime rt = Runtime.init(); Context ctx = Context.create(Feature.TAG, Feature.RMA);
             Worker w = ctx.newWorker(); MemoryMap heap = ctx.memMap(4096, 0); Arena arena = Arena.ofConfined()) {
            final byte[][] workers = rt.allgather(w.address());
            final byte[][] keys = rt.allgather(heap.packRkey());
            final int next = (rt.rank() + 1) % rt.size();
            final int prev = (rt.rank() + rt.size() - 1) % rt.size();
            final Endpoint ep = w.connect(workers[next]);
            final MemorySegment in = arena.allocate(64);
            final MemorySegment out = arena.allocate(64);
            out.set(ValueLayout.JAVA_LONG, 0, 1000 + rt.rank());
            final Request received = w.recvTag(in, TAG, -1L);
            ep.sendTag(TAG, out).await();
            received.await();
            try (Rkey rk = ep.unpackRkey(keys[next])) {
                final MemorySegment v = arena.allocate(ValueLayout.JAVA_LONG);
                v.set(ValueLayout.JAVA_LONG, 0, 42 + rt.rank());
                ep.put(v, 0, 8, rk.base(), rk).await();
                ep.flush().await();
            }
            while (heap.segment().get(ValueLayout.JAVA_LONG, 0) != 42 + prev) {
                w.progress(); // tcp puts need the target's progress
            }
            rt.barrier();
            return in.get(ValueLayout.JAVA_LONG, 0) == 1000 + prev;
        }
    }
}
