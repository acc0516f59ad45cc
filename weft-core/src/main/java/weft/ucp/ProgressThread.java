package weft.ucp;

import weft.ucs.WeftException;

import java.util.concurrent.locks.LockSupport;

/**
 * A daemon thread that progresses a {@link ThreadMode#MULTI} worker: progress while there is work,
 * and when idle sleep in {@link Worker#waitForEvents} (with {@link Feature#WAKEUP}) or park briefly.
 * Each sleep is short (at most {@link #IDLE_SLEEP_MS}) so work that user threads queue without an
 * event (a send waiting for resources) is still picked up promptly.
 */
final class ProgressThread {
    private static final System.Logger LOG = System.getLogger(ProgressThread.class.getName());
    static final int IDLE_SLEEP_MS = 5;

    private final Worker worker;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    ProgressThread(final Worker worker) {
        this.worker = worker;
        this.thread = Thread.ofPlatform().daemon().name("weft-progress-" + Integer.toHexString(worker.hashCode()))
            .start(this::run);
    }

    private void run() {
        final boolean wakeup = worker.hasWakeup();
        int idle = 0;
        while (running) {
            try {
                if (worker.progress() != 0) {
                    idle = 0;
                } else if (running) {
                    if (wakeup) {
                        worker.waitForEvents(IDLE_SLEEP_MS);
                    } else {
                        // no event fd to sleep on: back off from 20 us to 1 ms while nothing happens
                        LockSupport.parkNanos(Math.min(1_000_000L, 20_000L << Math.min(idle++, 6)));
                    }
                }
            } catch (final WeftException e) {
                if (!running) {
                    return;
                }
                reportOnce(e);
            } catch (final RuntimeException e) { // a user callback threw: report it and keep serving
                reportOnce(e);
            }
        }
    }

    private void reportOnce(final Throwable e) {
        if (failure == null) {
            failure = e;
        }
        LOG.log(System.Logger.Level.WARNING, "progress thread of " + worker + ": " + e, e);
    }

    /** Stops the thread and waits for it (the worker's lock must not be held by the caller). */
    void stop() {
        running = false;
        if (worker.hasWakeup()) {
            try {
                worker.signal();
            } catch (final WeftException e) {
                LOG.log(System.Logger.Level.DEBUG, "signal on stop: " + e);
            }
        }
        if (Thread.currentThread() == thread) {
            return; // closed from a callback on this thread: the loop ends when this call returns
        }
        try {
            thread.join(10_000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.log(System.Logger.Level.WARNING, "progress thread of " + worker + " did not stop in 10 s");
        }
    }
}
