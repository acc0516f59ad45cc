package weft.ucp;

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
 * <p>Adaptive progress (UCX's idea): interfaces that carry a lane of some endpoint are progressed on
 * every call; idle ones (no lane: e.g. tcp when every peer is reached over shm, whose progress is an
 * epoll_wait syscall) once every {@link #IDLE_PERIOD} calls, which is enough to notice a peer's first
 * message (wireup, a connection). An idle interface that did work stays "hot", progressed on every call,
 * for {@link #HOT_CALLS} calls, so that traffic on it is never throttled for long.
 */
final class IfaceSet {
    /** An idle interface is progressed once in this many calls (a power of two). */
    static final int IDLE_PERIOD = 32;
    /** Calls for which an idle interface that did work is progressed every time. */
    static final int HOT_CALLS = 4096;

    final WorkerIface[] all;
    /** Counts progress calls; idle interfaces get their turn when its low bits are zero. */
    private int tick;

    IfaceSet(final Context context, final UctWorker uct, final InterfaceParams params) {
        this.all = WorkerIface.openAll(context, uct, params);
    }

    /** Progresses the busy interfaces, and the idle ones on their turn; returns the work done. */
    int progress() {
        final boolean idleTurn = (++tick & (IDLE_PERIOD - 1)) == 0;
        int work = 0;
        for (final WorkerIface wi : all) {
            if (wi.lanes > 0) {
                work += wi.iface.progress();
            } else if (idleTurn || wi.hot > 0) {
                final int n = wi.iface.progress();
                wi.hot = n > 0 ? HOT_CALLS : wi.hot - (wi.hot > 0 ? 1 : 0);
                work += n;
            }
        }
        return work;
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
