package weft.tools.perftest;

import weft.ucs.Status;
import weft.uct.Endpoint;
import weft.uct.ErrorHandler;

/**
 * Keeps the wait loops of a run from hanging: they call {@link #check} on every spin; about
 * every millisecond it looks at the interface error handler's verdict, at the control connection
 * (a dead peer closes it) and at how long the current wait has lasted. Allocation free unless it
 * throws.
 */
final class Watchdog implements ErrorHandler {
    private static final long PEER_POLL_NS = 20_000_000L;

    private final ControlChannel control;
    private final long stallNs;
    private int spins;
    private long waitStart;
    private long lastPeerPoll;
    private Status endpointFailure;
    private int lastFrame;

    /**
     * @param control the control connection, or null in loopback mode
     * @param stallNs longest time one wait may last
     */
    Watchdog(final ControlChannel control, final long stallNs) {
        this.control = control;
        this.stallNs = stallNs;
    }

    @Override
    public void onError(final Endpoint endpoint, final Status status) {
        if (endpointFailure == null) {
            endpointFailure = status;
        }
    }

    /** A new wait begins. */
    void begin() {
        spins = 0;
        waitStart = 0;
    }

    /**
     * Called on each spin of a wait that should end soon; {@code what} names it (a constant).
     *
     * @throws PerfException on a stall, an endpoint failure or a dead peer
     */
    void check(final String what) {
        if ((++spins & 255) == 0) {
            slowCheck(what, true);
        }
    }

    /** Like {@link #check} for a wait that may last the whole test (no stall limit). */
    void checkPeer(final String what) {
        if ((++spins & 255) == 0) {
            slowCheck(what, false);
        }
    }

    /** The type of the last complete control frame seen while checking (0 = none). */
    int lastFrame() {
        return lastFrame;
    }

    private void slowCheck(final String what, final boolean stall) {
        if (endpointFailure != null) {
            throw new PerfException("the endpoint failed while " + what + ": " + endpointFailure.description()
                + " (" + endpointFailure + ")");
        }
        final long now = System.nanoTime();
        if (waitStart == 0) {
            waitStart = now;
        } else if (stall && now - waitStart > stallNs) {
            throw new PerfException("no progress for " + stallNs / 1_000_000_000L + " s while " + what
                + (control != null ? " (peer " + control.peer() + ")" : ""));
        }
        if (control != null && now - lastPeerPoll > PEER_POLL_NS) {
            lastPeerPoll = now;
            lastFrame = control.poll();
            if (lastFrame == ControlChannel.ERROR) {
                control.receive(ControlChannel.DONE, 1_000_000_000L, what); // throws with the peer's message
            }
        }
    }

    /** Throws if an endpoint failed (checked once more at the end of a run). */
    void checkFailure(final String what) {
        if (endpointFailure != null) {
            throw new PerfException("the endpoint failed while " + what + ": " + endpointFailure.description());
        }
    }
}
