package weft.uct;

import org.junit.jupiter.api.Test;
import weft.ucs.Status;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PendingQueueTest {
    private final List<String> log = new ArrayList<>();

    /** A request that answers the statuses it is given, one per dispatch. */
    private final class Req extends PendingRequest {
        final String name;
        final Status[] answers;
        int calls;

        Req(final String name, final Status... answers) {
            this.name = name;
            this.answers = answers;
        }

        @Override
        public Status dispatch() {
            log.add(name);
            return answers[Math.min(calls++, answers.length - 1)];
        }
    }

    @Test
    void shouldDispatchInFifoOrder() {
        final PendingQueue q = new PendingQueue();
        final Req a = new Req("a", Status.OK);
        final Req b = new Req("b", Status.IN_PROGRESS);
        final Req c = new Req("c", Status.OK);
        q.add(a);
        q.add(b);
        q.add(c);
        assertEquals(3, q.size());
        assertTrue(a.isQueued());
        assertEquals(3, q.dispatch());
        assertEquals(List.of("a", "b", "c"), log);
        assertTrue(q.isEmpty());
        assertFalse(a.isQueued() || b.isQueued() || c.isQueued());
        assertEquals(0, q.dispatch());
    }

    @Test
    void shouldStopAtNoResourceAndRetryTheSameHead() {
        final PendingQueue q = new PendingQueue();
        final Req a = new Req("a", Status.OK);
        final Req b = new Req("b", Status.NO_RESOURCE, Status.NO_RESOURCE, Status.OK);
        final Req c = new Req("c", Status.OK);
        q.add(a);
        q.add(b);
        q.add(c);
        assertEquals(1, q.dispatch());
        assertEquals(List.of("a", "b"), log);
        assertEquals(2, q.size());
        assertTrue(b.isQueued(), "a request answering NO_RESOURCE stays at the head");
        assertEquals(0, q.dispatch());
        assertEquals(2, q.dispatch());
        assertEquals(List.of("a", "b", "b", "b", "c"), log);
        assertTrue(q.isEmpty());
    }

    @Test
    void shouldDropRequestsThatFail() {
        final PendingQueue q = new PendingQueue();
        q.add(new Req("x", Status.IO_ERROR));
        q.add(new Req("y", Status.OK));
        assertEquals(2, q.dispatch());
        assertTrue(q.isEmpty());
    }

    @Test
    void shouldRefuseARequestQueuedTwice() {
        final PendingQueue q = new PendingQueue();
        final PendingQueue other = new PendingQueue();
        final Req a = new Req("a", Status.OK);
        q.add(a);
        assertThrows(IllegalStateException.class, () -> q.add(a));
        assertThrows(IllegalStateException.class, () -> other.add(a));
        assertEquals(1, q.size());
        q.dispatch();
        other.add(a); // after leaving the queue it may be queued again
        assertEquals(1, other.size());
    }

    @Test
    void shouldPurgeInOrder() {
        final PendingQueue q = new PendingQueue();
        final Req a = new Req("a", Status.OK);
        final Req b = new Req("b", Status.OK);
        q.add(a);
        q.add(b);
        final List<PendingRequest> out = new ArrayList<>();
        q.purge(out::add);
        assertEquals(List.of(a, b), out);
        assertTrue(q.isEmpty());
        assertEquals(0, q.size());
        assertFalse(a.isQueued());
        assertTrue(log.isEmpty(), "purge does not dispatch");
        q.add(a);
        q.purge(null);
        assertTrue(q.isEmpty());
    }

    @Test
    void shouldSurviveAPurgeFromInsideDispatch() {
        final PendingQueue q = new PendingQueue();
        final Req b = new Req("b", Status.OK);
        q.add(new PendingRequest() {
            @Override
            public Status dispatch() {
                q.purge(null);
                return Status.OK;
            }
        });
        q.add(b);
        assertEquals(1, q.dispatch());
        assertTrue(q.isEmpty());
        assertTrue(log.isEmpty(), "the purged request was not dispatched");
        assertFalse(b.isQueued());
    }

    @Test
    void shouldNotAllocate() {
        final PendingQueue q = new PendingQueue();
        final Req a = new Req("a", Status.OK);
        final PendingRequest quiet = new PendingRequest() {
            @Override
            public Status dispatch() {
                return Status.OK;
            }
        };
        AllocationMeter.fewestBytes("20k add+dispatch", () -> {
            for (int i = 0; i < 20_000; i++) {
                q.add(quiet);
                q.dispatch();
            }
        }, 300, 30_000);
        assertFalse(a.isQueued());
    }
}
