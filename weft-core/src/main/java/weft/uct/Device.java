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

    @Override
    public String toString() {
        return transport + "/" + name;
    }
}
