package weft.ucp;

import weft.ucs.Status;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Helpers for tests that drive two workers of one process from one thread. */
final class TwoWorkers {
    private TwoWorkers() {
    }

    /** Progresses both workers until {@code r} completes (bounded by the workers' own timeouts), asserts OK, releases it. */
    static void settle(final Worker a, final Worker b, final Request r) {
        while (!r.isCompleted()) {
            a.progress();
            b.progress();
        }
        assertEquals(Status.OK, r.status());
        r.release();
    }
}
