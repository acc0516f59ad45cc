package weft.ucp;

import weft.ucs.Status;
import weft.ucs.stats.Counters;
import weft.uct.Capability;
import weft.uct.InterfaceParams;
import weft.uct.UctWorker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A worker's opened interfaces, one per usable device ({@link WorkerIface}), and what the worker does with
 * all of them at once: progress them adaptively, name them, copy their counters, bound the AM header.
 *
 * <p>Adaptive progress (UCX enables an interface's progress only while it is in use): interfaces that
 * carry a lane of some endpoint, or report {@link weft.uct.Interface#hasActivity() activity} of their own
 * (connections, endpoints, queued sends, unreported failures), are progressed on every call. An idle one
 * (e.g. tcp when every peer is reached over shm, whose progress is an epoll_wait syscall) can only see a
 * peer's first contact, so it gets an idle turn at most once per {@code WEFT_IDLE_PROGRESS_INTERVAL}: a time,
 * not a count of calls, so that a fast poll loop does not pay a syscall every few polls. Both are decided on
 * the worker's slow tick ({@link #tick}, with the clock its lifecycle services read anyway). An idle
 * interface that did work, or whose {@code arm()} found events, stays "hot", progressed on every call, for
 * {@link #HOT_CALLS} calls, so traffic on it is never throttled for long.
 */
final class IfaceSet {
    /** Calls for which an idle interface that did work is progressed every time. */
    static final int HOT_CALLS = 4096;
    /** The longest idle interval taken from the configuration. */
    static final long MAX_IDLE_INTERVAL_NS = 1_000_000_000L;

    final WorkerIface[] all;
    private final long idleIntervalNs;
    /** When idle interfaces get their next turn ({@link System#nanoTime()}). */
    private long nextIdleNs;
    /** Set by {@link #tick} when the idle interfaces' turn came: the next progress serves them. */
    private boolean idleTurn;

    IfaceSet(final Context context, final UctWorker uct, final InterfaceParams params) {
        this.all = WorkerIface.openAll(context, uct, params);
        this.idleIntervalNs = Math.min(context.config().get(UcpConfig.IDLE_PROGRESS_INTERVAL), MAX_IDLE_INTERVAL_NS);
        this.nextIdleNs = System.nanoTime() + idleIntervalNs;
    }

    /**
     * The worker's slow tick (every {@link Lifecycle#SERVICE_EVERY} calls, with the clock it read for its
     * services): asks the interfaces without lanes whether they have activity of their own (an interface
     * call on every progress would cost more than the poll it saves) and grants the idle ones their turn
     * when it is due.
     */
    void tick(final long now) {
        for (final WorkerIface wi : all) {
            wi.active = wi.lanes > 0 || wi.iface.hasActivity();
        }
        if (now - nextIdleNs >= 0) {
            nextIdleNs = now + idleIntervalNs;
            idleTurn = true;
        }
    }

    /** Progresses the busy interfaces, and the idle ones on their turn; returns the work done. */
    int progress() {
        final boolean idle = idleTurn;
        idleTurn = false;
        int work = 0;
        for (final WorkerIface wi : all) {
            if (wi.lanes > 0 || wi.active) {
                work += wi.iface.progress();
            } else if (wi.hot > 0 || idle) {
                final int n = wi.iface.progress();
                wi.hot = n > 0 ? HOT_CALLS : wi.hot - (wi.hot > 0 ? 1 : 0);
                work += n;
            }
        }
        return work;
    }

    /**
     * Arms every interface that has an event fd (see {@link weft.uct.Interface#arm()}); false when one has
     * events pending, which is made hot so that the next progress serves it however idle it was.
     */
    boolean armAll() {
        for (final WorkerIface wi : all) {
            if (wi.iface.eventFd() >= 0 && wi.iface.arm() != Status.OK) {
                wi.hot = HOT_CALLS;
                return false;
            }
        }
        return true;
    }

    /** Makes every interface hot: an event woke the worker and may be on an idle one. */
    void heatAll() {
        for (final WorkerIface wi : all) {
            wi.hot = HOT_CALLS;
        }
    }

    /** See {@link Worker#resources()}. */
    List<String> names() {
        final List<String> l = new ArrayList<>();
        for (final WorkerIface wi : all) {
            l.add(wi.name());
        }
        return l;
    }

    /** See {@link Worker#interfaceCounters()}. */
    Map<String, Counters> counters() {
        final Map<String, Counters> m = new LinkedHashMap<>();
        for (final WorkerIface wi : all) {
            m.put(wi.name(), wi.iface.counters().copy());
        }
        return m;
    }

    /** See {@link Worker#maxAmHeaderSize()}: a quarter of the smallest bcopy limit. */
    long maxAmHeaderSize() {
        long min = Long.MAX_VALUE;
        for (final WorkerIface wi : all) {
            if (wi.attrs.has(Capability.AM_BCOPY)) {
                min = Math.min(min, wi.attrs.amMaxBcopy() / 4);
            }
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    /** The entries of this worker's address, one per interface. */
    List<WorkerAddress.Entry> addressEntries() {
        final List<WorkerAddress.Entry> entries = new ArrayList<>();
        for (final WorkerIface wi : all) {
            entries.add(wi.addressEntry());
        }
        return entries;
    }
}
