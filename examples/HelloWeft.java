import weft.runtime.Runtime;
import weft.ucp.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** Run with: ./weft run -n 2 examples/HelloWeft.java — a tagged message and a put from rank 0 to rank 1. */
public class HelloWeft {
    public static void main(String[] args) {
        try (Runtime rt = Runtime.init(); Context ctx = Context.create(Feature.TAG, Feature.RMA);
             Worker w = ctx.newWorker(); MemoryMap heap = ctx.memMap(4096, 0); Arena arena = Arena.ofConfined()) {
            byte[][] workers = rt.allgather(w.address());     // out-of-band exchange through the launcher
            byte[][] keys = rt.allgather(heap.packRkey());
            Endpoint ep = w.connect(workers[1 - rt.rank()]);
            MemorySegment msg = arena.allocate(64);
            if (rt.rank() == 0) {
                msg.setString(0, "hello from rank 0");
                ep.sendTag(7, msg).await();                     // tag matched at rank 1
                try (Rkey rk = ep.unpackRkey(keys[1])) {
                    MemorySegment v = arena.allocate(JAVA_LONG);
                    v.set(JAVA_LONG, 0, 42);
                    ep.put(v, 0, 8, rk.base(), rk).await();    // one-sided write into rank 1's heap
                    ep.flush().await();                        // now visible at rank 1
                }
            } else {
                w.recvTag(msg, 7, -1L).await();
                while (heap.segment().get(JAVA_LONG, 0) != 42) { w.progress(); } // tcp puts need our progress
                System.out.println("rank 1 got \"" + msg.getString(0) + "\" and 42 in its heap over " + ep.describe().lines().findFirst().orElse(""));
            }
            rt.barrier();
        }
    }
}
