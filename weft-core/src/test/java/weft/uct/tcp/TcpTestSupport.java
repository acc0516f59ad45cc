package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.Completion;
import weft.uct.Device;
import weft.uct.ErrorHandler;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.UctWorker;

import java.io.File;
import java.util.function.BooleanSupplier;

/** Shared helpers of the tcp tests. */
final class TcpTestSupport {
    static final TcpTransport TRANSPORT = new TcpTransport();
    static final Device LO = new Device("tcp", "lo", Device.Type.NET);

    private TcpTestSupport() {
    }

    static Interface open(final UctWorker w) {
        return TRANSPORT.openInterface(w, LO, InterfaceParams.defaults());
    }

    static Interface open(final UctWorker w, final Config c, final ErrorHandler h) {
        return TRANSPORT.openInterface(w, LO, new InterfaceParams(c, h));
    }

    /** Progresses {@code ifaces} until {@code cond} holds; fails after {@code timeoutMs}. */
    static void progressUntil(final BooleanSupplier cond, final long timeoutMs, final String what,
                              final Interface... ifaces) {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what);
            }
            for (final Interface i : ifaces) {
                i.progress();
            }
        }
    }

    /**
     * The outcome of an operation that returned {@code st}: if IN_PROGRESS, progresses {@code ifaces}
     * until {@code c} completes (at most 20 s) and returns its status.
     */
    static Status await(final Completion c, final Status st, final Interface... ifaces) {
        if (st != Status.IN_PROGRESS) {
            return st;
        }
        progressUntil(c::isDone, 20000, "completion", ifaces);
        return c.status();
    }

    /** Progresses for {@code ms} milliseconds. */
    static void progressFor(final long ms, final Interface... ifaces) {
        final long deadline = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < deadline) {
            for (final Interface i : ifaces) {
                i.progress();
            }
        }
    }

    static int fdCount() {
        final String[] l = new File("/proc/self/fd").list();
        return l == null ? -1 : l.length;
    }
}
