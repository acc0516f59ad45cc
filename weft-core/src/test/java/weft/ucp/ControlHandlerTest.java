package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.uct.AmHandler;
import weft.uct.Interface;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Proxy;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The connection-level active messages (WIREUP, FLOW, EP_REMOVED, KEEPALIVE) are installed as one handler
 * class, {@link ControlHandler}, and no other id shares it (what keeps a first keepalive from meeting a
 * class the transports' handler call site has not seen), and each still reaches its owner: the wireup
 * connects, a keepalive is heard, FLOW stops and restarts the endpoint's queue, EP_REMOVED fails it.
 */
@Timeout(60)
class ControlHandlerTest {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final int[] CONTROL = {AmId.WIREUP, AmId.FLOW, AmId.EP_REMOVED, AmId.KEEPALIVE};

    @Test
    void theConnectionLevelIdsShareOneHandlerClassAndNoOtherIdDoes() {
        try (Context ctx = RawAm.context(); Worker w = ctx.newWorker()) {
            final AmHandler[] handlers = new AmHandler[Interface.AM_ID_COUNT];
            final Interface recorder = (Interface) Proxy.newProxyInstance(Interface.class.getClassLoader(),
                new Class<?>[] {Interface.class}, (p, m, args) -> {
                    if (m.getName().equals("setAmHandler")) {
                        handlers[(Integer) args[0]] = (AmHandler) args[1];
                    }
                    return null;
                });
            w.protocols.register(recorder);
            for (final int id : CONTROL) {
                final ControlHandler h = assertInstanceOf(ControlHandler.class, handlers[id], "id " + id);
                assertEquals(id, h.id());
            }
            assertNotNull(handlers[AmId.EAGER]);
            for (int id = 0; id < handlers.length; id++) {
                final int i = id;
                if (Arrays.stream(CONTROL).noneMatch(c -> c == i)) {
                    assertFalse(handlers[id] instanceof ControlHandler, "data id " + id + " behind the control class");
                }
            }
        }
    }

    @Test
    void eachControlMessageReachesItsOwner() {
        try (Context ctx = RawAm.context(); Worker a = ctx.newWorker(); Worker b = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final Endpoint ab = a.connect(b.address());
            // the WIREUPs (both ways) went through the control handler
            RawAm.progressUntil(a, b, () -> ab.remoteId >= 0 && ab.status() == Status.OK
                && b.epTable.byId(ab.remoteId) != null);
            final Endpoint peer = b.epTable.byId(ab.remoteId);
            final weft.uct.Endpoint raw = RawAm.rawEndpoint(a, b);
            final MemorySegment m = arena.allocate(16);

            peer.lastHeard = 0;
            send(raw, b, AmId.KEEPALIVE, m, peer.id, 0);
            RawAm.progressUntil(a, b, () -> peer.lastHeard != 0);

            send(raw, b, AmId.FLOW, m, peer.id, FlowControl.STOP);
            RawAm.progressUntil(a, b, () -> !peer.queue.isOpen());
            send(raw, b, AmId.FLOW, m, peer.id, FlowControl.GO);
            RawAm.progressUntil(a, b, peer.queue::isOpen);

            send(raw, b, AmId.EP_REMOVED, m, peer.id, 0);
            RawAm.progressUntil(a, b, () -> peer.status() != Status.OK);
            assertEquals(Status.CONNECTION_RESET, peer.status());
            raw.close();
        }
    }

    /** A control message as received (endpoint id, value), through b's shm interface. */
    private static void send(final weft.uct.Endpoint raw, final Worker b, final int amId, final MemorySegment m,
                             final long epId, final long value) {
        m.set(LONG, 0, epId);
        m.set(LONG, 8, value);
        while (raw.amBcopy(amId, new RawAm.Bytes(m)) < 0) {
            b.progress(); // the FIFO is full: let b drain it
        }
    }
}
