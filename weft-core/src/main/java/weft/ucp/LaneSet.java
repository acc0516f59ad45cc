package weft.ucp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every lane of an endpoint (one set per endpoint): the lanes {@link LaneSelector} chose when the endpoint
 * was made ({@link Endpoint#lanes}, indexes 0..n-1), then the extra lanes connected later because a
 * remote key's memory is best reached, or railed, over a pair no lane used ({@link Rkey}), indexed from n
 * on. An extra lane counts as a use of its interface for adaptive progress until the endpoint closes.
 */
final class LaneSet {
    private final Endpoint ep;
    private final ArrayList<Lane> extra = new ArrayList<>();

    LaneSet(final Endpoint ep) {
        this.ep = ep;
    }

    /** Connects the lanes {@code sel} chose, in its order; on a failure closes those already connected. */
    static Lane[] connectSelected(final LaneSelector.Selection sel) {
        final Lane[] lanes = new Lane[sel.lanes().size()];
        try {
            for (int i = 0; i < lanes.length; i++) {
                final LaneSelector.Candidate c = sel.lanes().get(i);
                lanes[i] = new Lane(c.local(), c.remote(),
                    c.local().iface.connect(c.remote().deviceAddress(), c.remote().interfaceAddress()), i);
            }
        } catch (final RuntimeException e) {
            for (final Lane l : lanes) {
                if (l != null) {
                    l.uct.close();
                }
            }
            throw e;
        }
        return lanes;
    }

    /** The lanes of {@code rndv} that stream zero-copy AM at both ends: rendezvous over AM is striped over them. */
    static Lane[] amZcopyLanes(final Lane[] rndv) {
        final List<Lane> zl = new ArrayList<>();
        for (final Lane l : rndv) {
            if (l.local.attrs.has(weft.uct.Capability.AM_ZCOPY)
                && (l.remote.capabilities() & weft.uct.Capability.AM_ZCOPY) != 0) {
                zl.add(l);
            }
        }
        return zl.toArray(new Lane[0]);
    }

    /** The lanes and the extra lanes (connected later for remote keys), in index order. */
    int count() {
        return ep.lanes.length + extra.size();
    }

    Lane at(final int index) {
        return index < ep.lanes.length ? ep.lanes[index] : extra.get(index - ep.lanes.length);
    }

    /**
     * Up to {@code max} lanes to the peer on {@code transport}: the existing ones, then new connections
     * from local interfaces of that transport that no lane uses yet, each to a peer resource no lane uses
     * (one rail per device pair, as rendezvous rails).
     */
    List<Lane> forTransport(final String transport, final int max) {
        final List<Lane> out = new ArrayList<>();
        for (int i = 0; i < count() && out.size() < max; i++) {
            final Lane l = at(i);
            if (l.local.transport.name().equals(transport)) {
                out.add(l);
            }
        }
        for (final WorkerIface wi : ep.worker.ifaces) {
            if (out.size() >= max || !wi.transport.name().equals(transport) || usesLocal(wi)) {
                continue;
            }
            for (final WorkerAddress.Entry e : ep.remote.entries()) {
                // a rail through a gateway beside the direct lanes would be slower and, between subnets
                // joined by a host that does not forward, dead (LaneSelector's rule)
                if (e.transport().equals(transport) && !usesRemote(e)
                    && wi.iface.isReachable(e.deviceAddress(), e.interfaceAddress())
                    && wi.iface.isDirect(e.deviceAddress(), e.interfaceAddress())) {
                    out.add(addLane(wi, e));
                    break;
                }
            }
        }
        return out;
    }

    private boolean usesLocal(final WorkerIface wi) {
        for (int i = 0; i < count(); i++) {
            if (at(i).local == wi) {
                return true;
            }
        }
        return false;
    }

    private boolean usesRemote(final WorkerAddress.Entry e) {
        for (int i = 0; i < count(); i++) {
            if (at(i).remote == e) {
                return true;
            }
        }
        return false;
    }

    private Lane addLane(final WorkerIface wi, final WorkerAddress.Entry e) {
        final Lane l = new Lane(wi, e, wi.iface.connect(e.deviceAddress(), e.interfaceAddress()), count());
        extra.add(l);
        wi.lanes++; // adaptive progress: completions on this lane need its interface progressed
        return l;
    }

    /**
     * The lane to the peer on {@code transport}: an existing one, or the pair a new one would connect
     * ({@link #connect} connects it); null if unreachable.
     */
    LaneOption option(final String transport) {
        for (final Lane l : ep.lanes) {
            if (l.local.transport.name().equals(transport)) {
                return LaneOption.of(l);
            }
        }
        for (final Lane l : extra) {
            if (l.local.transport.name().equals(transport)) {
                return LaneOption.of(l);
            }
        }
        // a direct pair if there is one, else one through a gateway (LaneSelector's rule)
        for (int pass = 0; pass < 2; pass++) {
            for (final WorkerIface wi : ep.worker.ifaces) {
                if (!wi.transport.name().equals(transport)) {
                    continue;
                }
                for (final WorkerAddress.Entry e : ep.remote.entries()) {
                    if (e.transport().equals(transport) && wi.iface.isReachable(e.deviceAddress(), e.interfaceAddress())
                        && (pass == 1 || wi.iface.isDirect(e.deviceAddress(), e.interfaceAddress()))) {
                        return new LaneOption(null, wi, e);
                    }
                }
            }
        }
        return null;
    }

    /** The lane of {@code o}: the endpoint's own, or connected now (an extra lane). */
    Lane connect(final LaneOption o) {
        if (o.lane() != null) {
            return o.lane();
        }
        for (final Lane l : extra) { // connected meanwhile (another key, or lanesFor)
            if (l.local == o.local() && l.remote == o.remote()) {
                return l;
            }
        }
        return addLane(o.local(), o.remote());
    }

    /** True if one of the lanes is on {@code u}. */
    boolean uses(final weft.uct.Endpoint u) {
        for (int i = 0; i < count(); i++) {
            if (at(i).uct == u) {
                return true;
            }
        }
        return false;
    }

    /** Per-lane one-sided traffic (see {@link Endpoint#laneCounters()}). */
    Map<String, Map<weft.ucs.stats.Counter, Long>> counters() {
        final Map<String, Map<weft.ucs.stats.Counter, Long>> m = new LinkedHashMap<>();
        for (int i = 0; i < count(); i++) {
            final Lane l = at(i);
            m.merge(l.name(), l.counters.snapshot(), (a, b) -> {
                b.forEach((c, v) -> a.merge(c, v, Long::sum));
                return a;
            });
        }
        return m;
    }

    /** The lanes' names, for errors: {@code "shm/memory, tcp/eth0"}. */
    String describeLanes() {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < count(); i++) {
            sb.append(i == 0 ? "" : ", ").append(at(i).name());
        }
        return sb.isEmpty() ? "none" : sb.toString();
    }

    /** Closes every lane's transport endpoint. */
    void close() {
        for (final Lane l : ep.lanes) {
            l.uct.close();
        }
        for (final Lane l : extra) {
            l.uct.close();
            l.local.lanes--; // adaptive progress: the interface may go idle
        }
        extra.clear();
    }
}
