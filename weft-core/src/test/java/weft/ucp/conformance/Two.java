package weft.ucp.conformance;

import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.Request;
import weft.ucp.ThreadMode;
import weft.ucp.Worker;
import weft.ucs.config.Config;

import java.util.function.BooleanSupplier;

/**
 * Two workers driven by one test thread (each with its own context), for lifecycle tests that do not
 * need a second thread: {@link #progressUntil} progresses both.
 */
final class Two implements AutoCloseable {
    /**
     * SecureRandom (tcp tokens, handshake nonces) opens /dev/random and /dev/urandom once per JVM: open
     * them before a test takes its fd snapshot (call from the test class's static initializer).
     */
    static void warmUp() {
        new java.security.SecureRandom().nextBytes(new byte[16]);
    }

    final Context ctxA;
    final Context ctxB;
    final Worker a;
    final Worker b;

    Two(final String tls, final Config config) {
        this(tls, config, ThreadMode.SERIALIZED);
    }

    Two(final String tls, final Config config, final ThreadMode mode) {
        ctxA = context(tls, config);
        ctxB = context(tls, config);
        a = ctxA.newWorker(mode);
        b = ctxB.newWorker(mode);
    }

    static Context context(final String tls, final Config config) {
        return Context.builder().features(Feature.values()).transports(tls.split(",")).config(config).build();
    }

    /** Connects a to b and b to a by worker address, and waits until both are wired. */
    Endpoint[] connectByAddress() {
        final Endpoint ab = a.connect(b.address());
        final Endpoint ba = b.connect(a.address());
        return new Endpoint[] {ab, ba};
    }

    /** Progresses both workers until {@code cond} holds; fails after {@code seconds}. */
    void progressUntil(final BooleanSupplier cond, final double seconds, final String what) {
        final long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + seconds + " s waiting for " + what);
            }
            progressBoth();
        }
    }

    void progressBoth() {
        progressQuietly(a);
        progressQuietly(b);
    }

    private static void progressQuietly(final Worker w) {
        try {
            w.progress();
        } catch (final weft.ucs.WeftException e) {
            if (e.status() != weft.ucs.Status.CLOSED) {
                throw e;
            }
        }
    }

    void await(final Request r, final double seconds, final String what) {
        progressUntil(r::isCompleted, seconds, what);
    }

    @Override
    public void close() {
        try {
            a.close();
        } finally {
            try {
                b.close();
            } finally {
                ctxA.close();
                ctxB.close();
            }
        }
    }
}
