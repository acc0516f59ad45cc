package weft.uct;

import org.junit.jupiter.api.Test;
import weft.ucs.Status;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompletionTest {
    @Test
    void shouldCallBackOnceWhenTheSharedCountReachesZero() {
        final List<Status> calls = new ArrayList<>();
        final Completion c = new Completion(calls::add).reset(3);
        c.complete(Status.OK);
        c.complete(Status.OK);
        assertEquals(1, c.count());
        assertFalse(c.isDone());
        assertTrue(calls.isEmpty());
        c.complete(Status.OK);
        assertTrue(c.isDone());
        assertEquals(List.of(Status.OK), calls);
        c.complete(Status.OK); // a stray extra completion must not call back again
        assertEquals(1, calls.size());
    }

    @Test
    void shouldKeepTheFirstError() {
        final List<Status> calls = new ArrayList<>();
        final Completion c = new Completion(calls::add).reset(4);
        c.complete(Status.OK);
        c.complete(Status.OUT_OF_RANGE);
        c.complete(Status.CONNECTION_RESET);
        c.complete(Status.OK);
        assertEquals(List.of(Status.OUT_OF_RANGE), calls);
        assertEquals(Status.OUT_OF_RANGE, c.status());
    }

    @Test
    void shouldNotTreatNonErrorsAsErrors() {
        final Completion c = new Completion().reset(2);
        c.complete(Status.IN_PROGRESS);
        c.complete(Status.NO_RESOURCE);
        assertEquals(Status.OK, c.status());
        assertTrue(c.isDone());
    }

    @Test
    void shouldBeReusableAndExtensible() {
        final int[] calls = {0};
        final Completion c = new Completion(st -> calls[0]++).reset(1);
        c.complete(Status.IO_ERROR);
        assertEquals(Status.IO_ERROR, c.status());
        c.reset(1);
        assertEquals(Status.OK, c.status(), "reset clears the status");
        c.expect(2);
        assertEquals(3, c.count());
        c.complete(Status.OK);
        c.complete(Status.OK);
        c.complete(Status.OK);
        assertEquals(2, calls[0]);
        assertEquals(Status.OK, c.status());
    }

    @Test
    void shouldLetSubclassesOverrideOnComplete() {
        final Status[] seen = new Status[1];
        final Completion c = new Completion() {
            @Override
            protected void onComplete(final Status st) {
                seen[0] = st;
            }
        }.reset(1);
        c.complete(Status.CANCELED);
        assertEquals(Status.CANCELED, seen[0]);
    }
}
