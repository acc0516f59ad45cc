package weft.uct;

/**
 * A device of a transport (UCT's tl resource): e.g. {@code memory} for shm, {@code lo} or
 * {@code eth0} for tcp.
 *
 * @param transport transport name
 * @param name      device name
 * @param type      what kind of device it is
 */
public record Device(String transport, String name, Type type) {
    /** Device kinds, as ucx_info reports them. */
    public enum Type { SELF, SHM, NET }

    // equals and hashCode spelled out: a record's own are linked on first use by generating method handle
    // classes, a cost on every PE's start-up path (devices are compared while a context opens)
    @Override
    public boolean equals(final Object o) {
        return o instanceof Device d && transport.equals(d.transport) && name.equals(d.name) && type == d.type;
    }

    @Override
    public int hashCode() {
        return (transport.hashCode() * 31 + name.hashCode()) * 31 + type.hashCode();
    }

    @Override
    public String toString() {
        return transport + "/" + name;
    }
}
