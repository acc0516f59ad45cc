package weft.tools.perftest;

import weft.ucp.Context;
import weft.ucp.Feature;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.uct.Transports;

import java.io.PrintStream;

/**
 * Runs a protocol-layer (UCP) perftest in one of the three roles. Each side has a {@link Context}
 * whose transports come from {@code WEFT_TLS} ({@code shm} meaning shm+cma+self), or from -x when
 * given (then sent to the server, so both sides use the same set), and one worker; the two worker
 * addresses travel over the control connection, and both sides connect (the endpoints pair up in
 * wireup). Loopback runs two workers of one context in this thread.
 */
final class UcpRun {
    private final PerfRun run;
    private final PrintStream out;
    private final long timeoutNs;

    UcpRun(final PerfRun run, final PrintStream out, final long timeoutNs) {
        this.run = run;
        this.out = out;
        this.timeoutNs = timeoutNs;
    }

    /** The context of a run: WEFT_TLS, or -x in its place. */
    static Context context(final PerfParams p) {
        if (!p.device().isEmpty()) {
            throw new PerfException("-d is not used by protocol-layer tests: devices are chosen per transport with "
                + "WEFT_<TL>_DEVICES (e.g. WEFT_TCP_DEVICES=lo)");
        }
        Config c = Config.global();
        if (!p.transport().isEmpty()) {
            c = c.with(Transports.TLS.name(), p.transport());
        }
        try {
            // TAG always: the bandwidth tests' end-of-stream message is a tag send
            return Context.builder().features(features(p.test())).config(c).name("perftest").build();
        } catch (final WeftException e) {
            throw new PerfException("cannot create the protocol-layer context: " + e.getMessage(), e);
        }
    }

    private static Feature[] features(final PerfTestKind test) {
        return switch (test.command()) {
            case STREAM -> new Feature[] {Feature.TAG, Feature.STREAM};
            case UCP_AM -> new Feature[] {Feature.TAG, Feature.AM};
            case PUT, GET -> new Feature[] {Feature.TAG, Feature.RMA};
            case ADD, FADD, SWAP, CSWAP -> new Feature[] {Feature.TAG, Feature.RMA, Feature.AMO32, Feature.AMO64};
            default -> new Feature[] {Feature.TAG};
        };
    }

    /** The responder of the test: two-sided (receives and replies) or one-sided (serves and checks memory). */
    private static UcpResponding responder(final UcpSide side, final long total) {
        return side.params.test().isUcpRma() ? new UcpRmaResponder(side, total) : new UcpResponder(side, total);
    }

    /** The timed loops of the test; {@code loopback} is the in-process responder, or null. */
    private static PerfLoop initiator(final UcpSide side, final UcpResponding loopback, final Watchdog watchdog) {
        return side.params.test().isUcpRma() ? new UcpRmaInitiator(side, loopback, watchdog)
            : new UcpInitiator(side, loopback, watchdog);
    }

    PerfResult loopback(final PerfParams p, final boolean finalOnly, final boolean csv) {
        try (Context ctx = context(p);
             UcpSide client = new UcpSide(ctx, p);
             UcpSide server = new UcpSide(ctx, p)) {
            final Watchdog watchdog = new Watchdog(null, timeoutNs);
            client.connect(server.setupMessage(), watchdog);
            server.connect(client.setupMessage(), watchdog);
            final UcpResponding responder = responder(server, p.warmup() + p.iterations());
            final PerfLoop initiator = initiator(client, responder, watchdog);
            final PerfOutput output = new PerfOutput(out, p, finalOnly, csv);
            out.print(csv ? PerfReport.openBox(p) : PerfReport.box(p, true));
            output.header(true);
            try {
                final PerfResult r = run.measure(p, initiator, output);
                final long deadline = System.nanoTime() + timeoutNs;
                while (!responder.finished()) { // bandwidth tests: the end-of-stream message is out already
                    responder.poll();
                    if (System.nanoTime() - deadline > 0) {
                        throw new PerfException("the responder did not finish: " + responder.handled());
                    }
                }
                responder.verify();
                return r;
            } finally {
                initiator.abandon();
                responder.abandon();
            }
        }
    }

    /** The server's part: responds until the client says it is done. */
    void serve(final ControlChannel control, final PerfParams p) {
        final Watchdog watchdog = new Watchdog(control, timeoutNs);
        try (Context ctx = contextFor(control, p, "server");
             UcpSide side = setup(control, ctx, p, watchdog, "server")) {
            final UcpResponding responder = responder(side, p.warmup() + p.iterations());
            try {
                watchdog.begin();
                serveUntilDone(responder, watchdog);
                control.receive(ControlChannel.DONE, timeoutNs, "the end of the test");
                // the last replies may still wait for the client's acknowledgement (sync sends)
                final long deadline = System.nanoTime() + 1_000_000_000L;
                while (!responder.finished() && System.nanoTime() < deadline) {
                    responder.poll();
                }
                if (!responder.finished()) {
                    throw new PerfException("the client ended the test early (" + responder.handled() + ")");
                }
                try {
                    responder.verify();
                } catch (final PerfException e) {
                    control.sendErrorQuietly("server: " + e.getMessage());
                    throw e;
                }
                control.send(ControlChannel.FIN);
            } finally {
                responder.abandon();
            }
        }
    }

    /**
     * The server's loop, a method of its own: with perftest's early compile thresholds a loop inside
     * {@link #serve} had the whole of it (setup included, 28 KB of code) compiled by C2 in the foreground, a
     * 230 ms stop in the middle of a short test.
     */
    private static void serveUntilDone(final UcpResponding responder, final Watchdog watchdog) {
        while (watchdog.lastFrame() != ControlChannel.DONE) {
            responder.poll();
            watchdog.checkPeer("serving the test");
        }
    }

    /** The client's part: measures, then ends the test with the server. */
    PerfResult client(final ControlChannel control, final PerfParams p, final PerfOutput output) {
        final Watchdog watchdog = new Watchdog(control, timeoutNs);
        try (Context ctx = contextFor(control, p, "client");
             UcpSide side = setup(control, ctx, p, watchdog, "client")) {
            final PerfLoop initiator = initiator(side, null, watchdog);
            final PerfResult r;
            try {
                r = run.measure(p, initiator, output);
            } catch (final PerfException e) {
                control.sendErrorQuietly("client: " + e.getMessage());
                throw e;
            } finally {
                initiator.abandon();
            }
            control.send(ControlChannel.DONE);
            // keep progressing while the server finishes: it may wait for this side's acknowledgements
            final long deadline = System.nanoTime() + timeoutNs;
            while (control.poll() == 0) {
                side.worker.progress();
                if (System.nanoTime() - deadline > 0) {
                    throw new PerfException("the server did not acknowledge the end of the test");
                }
                Thread.onSpinWait();
            }
            control.receive(ControlChannel.FIN, timeoutNs, "the server's acknowledgement of the end");
            return r;
        }
    }

    private static Context contextFor(final ControlChannel control, final PerfParams p, final String role) {
        try {
            return context(p);
        } catch (final PerfException e) {
            control.sendErrorQuietly(role + ": " + e.getMessage());
            throw e;
        }
    }

    /** Creates the worker and does the setup handshake ({@link ControlChannel#setUp}). */
    private UcpSide setup(final ControlChannel control, final Context ctx, final PerfParams p,
                          final Watchdog watchdog, final String role) {
        return control.setUp(() -> new UcpSide(ctx, p), (side, peer) -> side.connect(peer, watchdog), role, timeoutNs);
    }
}
