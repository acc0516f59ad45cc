package weft.ucp;

import weft.ucs.stats.Counter;
import weft.ucs.stats.Counters;
import weft.uct.Endpoint;

/** One connection of a ucp endpoint: a local interface, the peer's matching resource, and the uct endpoint. */
final class Lane {
    final WorkerIface local;
    final WorkerAddress.Entry remote;
    final Endpoint uct;
    /** Position among the endpoint's lanes (extra lanes after the selected ones): its bit in lane masks. */
    final int index;
    /** One-sided traffic on this lane (PUTS, GETS, ATOMICS, TX_BYTES put, RX_BYTES got), for tests and tools. */
    final Counters counters = new Counters();
    /** Bytes of one-sided operations issued on this lane whose request has not completed (LanePolicy LU). */
    long outstanding;

    Lane(final WorkerIface local, final WorkerAddress.Entry remote, final Endpoint uct, final int index) {
        this.local = local;
        this.remote = remote;
        this.uct = uct;
        this.index = index;
    }

    String name() {
        return local.name();
    }

    double latencyNs() {
        return Math.max(local.attrs.latencyNs(), remote.latencyNs());
    }

    double bandwidth() {
        return Math.min(local.attrs.bandwidth(), remote.bandwidth());
    }

    /** This lane's bit in a mask of lanes (bit 63 stands for every lane from 63 on: masks stay conservative). */
    long bit() {
        return 1L << Math.min(index, 63);
    }

    /** Accounts one put or get piece issued on this lane. */
    void countRma(final boolean put, final long bytes) {
        counters.increment(put ? Counter.PUTS : Counter.GETS);
        counters.add(put ? Counter.TX_BYTES : Counter.RX_BYTES, bytes);
    }

    @Override
    public String toString() {
        return name();
    }
}
