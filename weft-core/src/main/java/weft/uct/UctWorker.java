package weft.uct;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The progress context interfaces are opened on (UCT's worker): it tracks its interfaces so that
 * {@link #progress()} drives them all and {@link #close()} releases them. Single threaded.
 */
public final class UctWorker implements AutoCloseable {
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private Interface[] ifaces = new Interface[0];
    private boolean closed;

    /** A worker context with no interface opened yet. */
    public UctWorker() {
    }

    /** Unique id of this worker in the process. */
    public long id() {
        return id;
    }

    /** Called by transports when an interface opens on this worker. */
    public void attach(final Interface iface) {
        if (closed) {
            throw new IllegalStateException("worker is closed");
        }
        final Interface[] n = java.util.Arrays.copyOf(ifaces, ifaces.length + 1);
        n[ifaces.length] = iface;
        ifaces = n; // copy-on-write: progress walks a plain array
    }

    /** Called by transports when an interface closes. */
    public void detach(final Interface iface) {
        final List<Interface> l = new ArrayList<>(List.of(ifaces));
        l.remove(iface);
        ifaces = l.toArray(new Interface[0]);
    }

    /** Progresses every interface; returns the total work done. */
    public int progress() {
        final Interface[] a = ifaces;
        int work = 0;
        for (final Interface i : a) {
            work += i.progress();
        }
        return work;
    }

    public List<Interface> interfaces() {
        return List.of(ifaces);
    }

    /** Closes every interface still open on this worker. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (final Interface i : ifaces) {
            i.close();
        }
        ifaces = new Interface[0];
    }
}
