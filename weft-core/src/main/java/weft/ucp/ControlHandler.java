package weft.ucp;

import weft.ucs.Status;
import weft.uct.AmHandler;
import weft.uct.Interface;

import java.lang.foreign.MemorySegment;

/**
 * The handler of the connection-level active messages (WIREUP, FLOW, EP_REMOVED, KEEPALIVE): one instance
 * per id, all of this one final class, each passing its messages to the worker part that owns them.
 *
 * <p>Why one class: a transport calls every AM handler from one call site ({@code AbstractInterface.deliver}),
 * which the JIT compiles, inlined into the interface's receive loop, for the handler classes it has seen
 * there; a class it has not seen takes a class-check trap that sends the whole loop back to the interpreter
 * and to a recompile (tens of milliseconds on a small machine). These messages are rare and come one kind at
 * a time (a wireup, then a keepalive a few ms later, a flow stop under load), so a loop compiled after the
 * first of them was trapped by the next: with each behind a class of its own, a ucp_put_lat run (which
 * receives nothing else) deoptimized at its first keepalive. Behind this one class, once any of them has been
 * seen the site knows all of them, and the data handlers (a class each) keep their own places in the profile.
 */
final class ControlHandler implements AmHandler {
    private final Worker worker;
    private final int id;

    private ControlHandler(final Worker worker, final int id) {
        this.worker = worker;
        this.id = id;
    }

    /** Installs the handler of every connection-level id on {@code i}. */
    static void register(final Interface i, final Worker worker) {
        for (final int id : new int[] {AmId.WIREUP, AmId.FLOW, AmId.EP_REMOVED, AmId.KEEPALIVE}) {
            i.setAmHandler(id, new ControlHandler(worker, id));
        }
    }

    @Override
    public Status onReceive(final MemorySegment data, final long offset, final long length, final int flags) {
        return switch (id) {
            case AmId.WIREUP -> worker.epTable.onWireup(data, offset, length, flags);
            case AmId.FLOW -> worker.flow.onFlow(data, offset, length, flags);
            case AmId.EP_REMOVED -> worker.lifecycle.onEpRemoved(data, offset, length, flags);
            case AmId.KEEPALIVE -> worker.lifecycle.onKeepalive(data, offset, length, flags);
            default -> throw new IllegalStateException("not a control AM id: " + id);
        };
    }

    /** The AM id this instance handles. */
    int id() {
        return id;
    }
}
