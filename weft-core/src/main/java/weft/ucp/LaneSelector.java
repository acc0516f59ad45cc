package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.Capability;
import weft.uct.MemoryDomainAttributes;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Chooses an endpoint's lanes from the local resources and the peer's address, by capability and a
 * score computed from the performance model, never by transport name. Deterministic: the same inputs
 * give the same lanes, so both ends agree. A pair the local interface reaches only through a gateway
 * ({@link weft.uct.Interface#isDirect}) is a candidate only if its transport has no direct pair.
 *
 * <ul>
 *   <li>AM (tag eager, control): needs AM short+bcopy both ways; score 1/(latency + 2·overhead).</li>
 *   <li>RMA_BW (rendezvous): needs get-zcopy and a memory domain that registers any memory both ways;
 *   score 1/(256 KiB/bandwidth + latency + overhead + registration); up to {@code WEFT_MAX_RNDV_RAILS}
 *   lanes, none slower than the fastest by more than {@code WEFT_MULTI_LANE_MAX_RATIO}, no two sharing a
 *   local interface or a peer resource (a rail is a device pair; {@code WEFT_TCP_RAILS} offers more).</li>
 *   <li>KEEPALIVE: the AM lane if it can check its peer, else the best lane that can.</li>
 * </ul>
 */
final class LaneSelector {
    /** A usable pair: a local interface and the peer's matching resource. */
    record Candidate(WorkerIface local, WorkerAddress.Entry remote) {
        double latency() {
            return Math.max(local.attrs.latencyNs(), remote.latencyNs());
        }

        double overhead() {
            return local.attrs.overheadNs() + remote.overheadNs();
        }

        double bandwidth() {
            return Math.min(local.attrs.bandwidth(), remote.bandwidth());
        }

        boolean both(final long caps) {
            return Capability.has(local.attrs.flags(), caps) && Capability.has(remote.capabilities(), caps);
        }
    }

    /** The chosen lanes: indices into {@link #lanes}. */
    record Selection(List<Candidate> lanes, int am, int[] rndv, double[] rndvWeights, int keepalive) {
        String describe() {
            final StringBuilder sb = new StringBuilder();
            for (int i = 0; i < lanes.size(); i++) {
                final Candidate c = lanes.get(i);
                sb.append("lane ").append(i).append(": ").append(c.local.name()).append(" ->")
                    .append(' ').append(c.remote.transport()).append('/').append(c.remote.device()).append(" [");
                final List<String> roles = new ArrayList<>();
                if (i == am) {
                    roles.add("am");
                }
                for (int r = 0; r < rndv.length; r++) {
                    if (rndv[r] == i) {
                        roles.add(String.format("rma_bw %.0f%%", rndvWeights[r] * 100));
                    }
                }
                if (i == keepalive) {
                    roles.add("keepalive");
                }
                sb.append(String.join(", ", roles)).append("]\n");
            }
            return sb.toString();
        }
    }

    private static final double RNDV_SCORE_SIZE = 256 * 1024;

    private LaneSelector() {
    }

    static Selection select(final WorkerIface[] locals, final WorkerAddress remote, final Context ctx) {
        final List<Candidate> all = new ArrayList<>();
        final List<Candidate> routed = new ArrayList<>();
        final StringBuilder why = new StringBuilder();
        for (final WorkerIface l : locals) {
            for (final WorkerAddress.Entry e : remote.entries()) {
                if (!e.transport().equals(l.transport.name())) {
                    continue;
                }
                if (l.iface.isReachable(e.deviceAddress(), e.interfaceAddress())) {
                    if (l.iface.isDirect(e.deviceAddress(), e.interfaceAddress())) {
                        all.add(new Candidate(l, e));
                    } else {
                        routed.add(new Candidate(l, e));
                    }
                } else {
                    why.append(' ').append(l.name()).append(" cannot reach ").append(e.transport()).append('/')
                        .append(e.device()).append(';');
                }
            }
        }
        for (final Candidate c : routed) {
            // through a gateway only where the transport has no direct pair: a routed rail beside a direct
            // one is slower and, between subnets joined by a host that does not forward, dead
            if (all.stream().noneMatch(d -> d.local.transport == c.local.transport)) {
                all.add(c);
            } else {
                why.append(' ').append(c.local.name()).append(" reaches ").append(c.remote.transport()).append('/')
                    .append(c.remote.device()).append(" only through a gateway;");
            }
        }
        // comparators spelled out: Comparator.comparing's lambdas are serializable ones, which the AOT cache
        // does not link, so a PE would generate their classes at start-up
        final Comparator<Candidate> tiebreak = (a, b) -> {
            final int c = Double.compare(b.bandwidth(), a.bandwidth());
            return c != 0 ? c : a.local.name().compareTo(b.local.name());
        };
        // AM lane
        final List<Candidate> am = new ArrayList<>();
        for (final Candidate c : all) {
            if (c.both(Capability.AM_SHORT | Capability.AM_BCOPY)) {
                am.add(c);
            }
        }
        if (am.isEmpty()) {
            throw new WeftException(Status.UNREACHABLE, "no transport reaches the peer with active messages "
                + "(local: " + names(locals) + "; peer: " + remote.entries().stream()
                .map(e -> e.transport() + "/" + e.device()).toList() + ";" + why + ")");
        }
        am.sort((a, b) -> {
            final int c = Double.compare(-1e3 / (a.latency() + a.overhead()), -1e3 / (b.latency() + b.overhead()));
            return c != 0 ? c : tiebreak.compare(a, b);
        });
        final List<Candidate> lanes = new ArrayList<>();
        lanes.add(am.get(0));
        // rendezvous lanes
        final List<Candidate> bw = new ArrayList<>();
        for (final Candidate c : all) {
            if (c.both(Capability.GET_ZCOPY) && c.local.mdAttrs.has(MemoryDomainAttributes.REG)
                && (c.remote.mdFlags() & MemoryDomainAttributes.REG) != 0) {
                bw.add(c);
            }
        }
        bw.sort((a, b) -> {
            final int c = Double.compare(-rndvScore(a), -rndvScore(b));
            return c != 0 ? c : tiebreak.compare(a, b);
        });
        final List<Candidate> rndv = new ArrayList<>();
        for (final Candidate c : bw) {
            if (rndv.size() == ctx.maxRndvRails) {
                break;
            }
            final double best = rndv.isEmpty() ? am.get(0).bandwidth() : rndv.get(0).bandwidth();
            if (c.bandwidth() * ctx.multiLaneMaxRatio < best) {
                break; // slower than streaming through the AM lane, or than the best rail, by too much
            }
            if (sharesDevice(rndv, c)) {
                continue; // one rail per device pair: another connection of a used device adds no rail
            }
            rndv.add(c);
        }
        final int[] rndvIdx = new int[rndv.size()];
        final double[] weights = new double[rndv.size()];
        double total = 0;
        for (final Candidate c : rndv) {
            total += c.bandwidth();
        }
        for (int i = 0; i < rndv.size(); i++) {
            rndvIdx[i] = indexOf(lanes, rndv.get(i));
            weights[i] = rndv.get(i).bandwidth() / total;
        }
        // keepalive
        int keepalive = -1;
        if (am.get(0).both(Capability.EP_CHECK)) {
            keepalive = 0;
        } else {
            for (final Candidate c : all) {
                if (c.both(Capability.EP_CHECK)) {
                    keepalive = indexOf(lanes, c);
                    break;
                }
            }
        }
        return new Selection(List.copyOf(lanes), 0, rndvIdx, weights, keepalive);
    }

    private static boolean sharesDevice(final List<Candidate> chosen, final Candidate c) {
        for (final Candidate o : chosen) {
            if (o.local == c.local || o.remote == c.remote) {
                return true;
            }
        }
        return false;
    }

    private static int indexOf(final List<Candidate> lanes, final Candidate c) {
        for (int i = 0; i < lanes.size(); i++) {
            if (lanes.get(i).local == c.local && lanes.get(i).remote == c.remote) {
                return i;
            }
        }
        lanes.add(c);
        return lanes.size() - 1;
    }

    static double rndvScore(final Candidate c) {
        final double reg = c.local.mdAttrs.regCostNs() + c.local.mdAttrs.regCostNsPerByte() * RNDV_SCORE_SIZE;
        return 1e3 / (RNDV_SCORE_SIZE * 1e9 / c.bandwidth() + c.latency() + c.overhead() + reg);
    }

    private static List<String> names(final WorkerIface[] locals) {
        final List<String> l = new ArrayList<>();
        for (final WorkerIface w : locals) {
            l.add(w.name());
        }
        return l;
    }
}
