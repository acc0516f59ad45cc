package weft.ucp;

import weft.uct.Endpoint;

/** One connection of a ucp endpoint: a local interface, the peer's matching resource, and the uct endpoint. */
final class Lane {
    final WorkerIface local;
    final WorkerAddress.Entry remote;
    final Endpoint uct;

    Lane(final WorkerIface local, final WorkerAddress.Entry remote, final Endpoint uct) {
        this.local = local;
        this.remote = remote;
        this.uct = uct;
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

    @Override
    public String toString() {
        return name();
    }
}
