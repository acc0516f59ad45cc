package weft.ucp;

import weft.ucs.Status;
import weft.ucs.sys.LibC;
import weft.ucs.wakeup.EventFd;
import weft.ucs.wakeup.EventSet;

/**
 * A worker's sleep ({@link Feature#WAKEUP}): one epoll set over the interfaces' event fds and an event fd
 * that {@link Worker#signal()} writes. {@link #await} arms every interface first and returns at once when
 * work is pending, so a wakeup is never lost between the last progress and the sleep.
 */
final class WorkerWakeup {
    private final Worker worker;
    private final EventSet events;
    private final EventFd signalFd;

    WorkerWakeup(final Worker worker) {
        this.worker = worker;
        events = new EventSet(worker.ifaces.length + 1);
        signalFd = new EventFd();
        events.add(signalFd.fd(), LibC.EPOLLIN, -1);
        for (final WorkerIface wi : worker.ifaces) {
            if (wi.iface.eventFd() >= 0) {
                events.add(wi.iface.eventFd(), LibC.EPOLLIN, wi.index);
            }
        }
    }

    /** See {@link Worker#waitForEvents}. */
    boolean await(final int timeoutMs) {
        final long deadline = System.nanoTime() + Math.max(0, timeoutMs) * 1_000_000L;
        while (true) {
            worker.guard.enter();
            try {
                worker.checkOpen();
                worker.serviceCountdown = 0; // whatever woke us may be a lifecycle event: the next progress looks
                if (worker.lifecycle.service() > 0 || worker.requests.hasDone() || !worker.sendPending.isEmpty()
                    || !worker.getPending.isEmpty()) {
                    return true;
                }
                if (!worker.ifaceSet.armAll()) {
                    return true; // events are pending: progress instead of sleeping
                }
            } finally {
                worker.guard.exit();
            }
            final long leftMs = timeoutMs < 0 ? Integer.MAX_VALUE : (deadline - System.nanoTime() + 999_999) / 1_000_000;
            final int slice = (int) Math.max(0, Math.min(worker.lifecycle.sleepSliceMs(), leftMs));
            final int n = events.await(slice);
            signalFd.drain();
            if (n > 0) {
                worker.guard.enter();
                try {
                    worker.ifaceSet.heatAll(); // the event may be on an idle interface: progress it at once
                } finally {
                    worker.guard.exit();
                }
                return true;
            }
            if (timeoutMs >= 0 && System.nanoTime() - deadline >= 0) {
                return false;
            }
        }
    }

    /** See {@link Worker#arm()}; the caller holds the guard. */
    Status arm() {
        worker.checkOpen();
        signalFd.drain(); // a signal already seen by the caller's poll must not keep the fd readable
        worker.serviceCountdown = 0;
        if (worker.lifecycle.service() > 0 || worker.requests.hasDone() || !worker.sendPending.isEmpty()
            || !worker.getPending.isEmpty()) {
            return Status.BUSY;
        }
        return worker.ifaceSet.armAll() ? Status.OK : Status.BUSY;
    }

    int fd() {
        return events.fd();
    }

    void signal() {
        signalFd.signal();
    }

    void close() {
        events.close();
        signalFd.close();
    }
}
