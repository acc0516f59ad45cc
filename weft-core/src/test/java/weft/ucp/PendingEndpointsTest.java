package weft.ucp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PendingEndpointsTest {
    @Test
    void anEndpointIsListedOnceAndItsFlagFollowsTheList() {
        try (Context ctx = Context.builder().features(Feature.TAG).transports("self").build();
             Worker w = ctx.newWorker()) {
            final Endpoint a = w.connect(w.address());
            final Endpoint b = w.connect(w.address());
            final PendingEndpoints p = new PendingEndpoints();
            p.add(a);
            p.add(b);
            p.add(a);
            assertEquals(2, p.size(), "listed once");
            assertTrue(a.sendPendingListed && b.sendPendingListed);
            p.removeAt(0);
            assertFalse(a.sendPendingListed);
            assertSame(b, p.get(0));
            p.remove(a); // not listed: nothing happens
            assertEquals(1, p.size());
            p.remove(b);
            assertTrue(p.isEmpty() && !b.sendPendingListed);
            p.add(a);
            assertSame(a, p.get(0), "listed again after removal");
        }
    }
}
