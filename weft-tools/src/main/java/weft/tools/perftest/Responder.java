package weft.tools.perftest;

import weft.ucs.Status;
import weft.uct.AmHandler;

import java.lang.foreign.MemorySegment;

/**
 * The server's part of a test, driven by polling so that the same code runs in its own process
 * (2-process mode) or inside the initiator's waits (loopback): echoes ping-pong messages, puts
 * and atomic adds, counts am_bw messages and returns flow-control credits. One-sided stream
 * tests need nothing from it but progress. Allocation free.
 */
final class Responder {
    private final PerfSide side;
    private final PerfTestKind test;
    /** Iterations the initiator runs in all (warm-up + measured). */
    private final long total;
    private final long creditStep;
    private long received;
    private long replied;
    private long credited;

    Responder(final PerfSide side, final long total) {
        this.side = side;
        this.test = side.params.test();
        this.total = total;
        this.creditStep = Math.max(1, side.params.window() / 2);
        if (test.command() == PerfTestKind.Command.AM) {
            side.iface.setAmHandler(PerfSide.AM_DATA, new DataHandler());
        }
    }

    /** Counts a message of the initiator. */
    private final class DataHandler implements AmHandler {
        @Override
        public Status onReceive(final MemorySegment data, final long offset, final long length, final int flags) {
            received++;
            return Status.OK;
        }
    }

    /**
     * Does the responder's next step if it is due.
     *
     * @return work done (0 = nothing to do)
     */
    int poll() {
        return switch (test) {
            case AM_LAT -> replyAm();
            case PUT_LAT -> replyPut();
            case ADD_LAT -> replyAdd();
            case AM_BW -> credit();
            default -> 0;
        };
    }

    private int replyAm() {
        if (received <= replied) {
            return 0;
        }
        final Status st = side.sendAm(PerfSide.AM_REPLY, replied + 1);
        return done(st, "replying to an active message");
    }

    private int replyPut() {
        final byte expected = (byte) (replied + 1);
        if (replied >= total || side.lastRecvByte() != expected) {
            return 0;
        }
        side.setLastSendByte(expected);
        return done(side.put(), "putting the reply");
    }

    private int replyAdd() {
        final long word = side.recvWord();
        if (replied >= total || word <= (side.atomic32 ? (int) replied : replied)) {
            return 0;
        }
        return done(side.atomicAdd(), "adding the reply");
    }

    private int done(final Status st, final String what) {
        if (st == Status.OK || st == Status.IN_PROGRESS) {
            replied++;
            return 1;
        }
        if (st == Status.NO_RESOURCE) {
            return 0; // retried on the next poll
        }
        throw Initiator.failed(st, what);
    }

    private int credit() {
        if (received - credited < creditStep && !(received == total && credited < received)) {
            return 0;
        }
        final Status st = side.sendCredit(received);
        if (st == Status.OK || st == Status.IN_PROGRESS) {
            credited = received;
            return 1;
        }
        if (st == Status.NO_RESOURCE) {
            return 0;
        }
        throw Initiator.failed(st, "sending a flow-control credit");
    }

    /** True when this side has done its share of an active test (ping-pong, am_bw). */
    boolean finished() {
        return switch (test) {
            case AM_LAT, PUT_LAT, ADD_LAT -> replied >= total;
            case AM_BW -> credited >= total;
            default -> true;
        };
    }

    long received() {
        return test.command() == PerfTestKind.Command.AM ? received : replied;
    }
}
