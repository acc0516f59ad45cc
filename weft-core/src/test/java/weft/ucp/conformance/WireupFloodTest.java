package weft.ucp.conformance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.conformance.Waits;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Many peers wiring up to one worker at once fill its receive FIFO: a connect must never fail for it
 * (at 32 and 64 PEs, all-pairs wireup over shm threw NO_RESOURCE from {@code Worker.connect}); the
 * wireup message waits in the endpoint's send queue like any other send, ahead of what is sent later.
 * Here the target has a 4-cell FIFO and does not progress while 24 workers connect and send to it.
 */
@Timeout(120)
class WireupFloodTest {
    private static final int PEERS = 24;

    static {
        Two.warmUp();
    }

    @Test
    void connectsToAWorkerWhoseFifoIsFullWaitInTheSendQueue() {
        final Config cfg = Config.global().with("SHM_FIFO_SIZE", "4");
        final List<Context> contexts = new ArrayList<>();
        final List<Worker> peers = new ArrayList<>();
        try (Context tctx = Two.context("shm,self", cfg); Worker target = tctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final List<Endpoint> eps = new ArrayList<>();
            final List<Request> sends = new ArrayList<>();
            for (int i = 0; i < PEERS; i++) {
                final Context c = Two.context("shm,self", cfg);
                contexts.add(c);
                final Worker w = c.newWorker();
                peers.add(w);
                final Endpoint ep = w.connect(target.address()); // threw NO_RESOURCE once the FIFO was full
                eps.add(ep);
                final MemorySegment msg = arena.allocate(8);
                msg.set(ValueLayout.JAVA_LONG, 0, i);
                sends.add(ep.sendTag(100 + i, msg, 0, 8)); // queued behind the wireup where that waits
            }
            final MemorySegment got = arena.allocate(8L * PEERS);
            final List<Request> recvs = new ArrayList<>();
            for (int i = 0; i < PEERS; i++) {
                recvs.add(target.recvTag(got, 8L * i, 8, 100 + i, -1L));
            }
            Waits.until(() -> recvs.stream().allMatch(Request::isCompleted) && sends.stream().allMatch(
                Request::isCompleted), () -> {
                    int work = target.progress();
                    for (final Worker w : peers) {
                        work += w.progress();
                    }
                    return work;
                }, Waits.DEFAULT_TIMEOUT_MS, () -> "every peer's wireup and message");
            for (int i = 0; i < PEERS; i++) {
                assertEquals(Status.OK, sends.get(i).status(), "send of peer " + i);
                assertEquals(Status.OK, recvs.get(i).status(), "receive from peer " + i);
                assertEquals(i, got.get(ValueLayout.JAVA_LONG, 8L * i), "payload of peer " + i);
                assertEquals(Status.OK, eps.get(i).status(), "endpoint of peer " + i);
            }
        } finally {
            for (final Worker w : peers) {
                w.close();
            }
            for (final Context c : contexts) {
                c.close();
            }
        }
    }
}
