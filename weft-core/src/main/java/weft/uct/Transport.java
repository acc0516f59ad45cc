package weft.uct;

import weft.ucs.config.ConfigVar;

import java.util.List;

/**
 * A transport plug-in (UCT's component + tl), found with {@link java.util.ServiceLoader}. A
 * transport never imports another transport.
 */
public interface Transport {
    /** Short name, as used in {@code WEFT_TLS}: self, shm, cma, tcp. */
    String name();

    /**
     * The usable devices on this machine; empty when the transport cannot work here (then
     * {@link #unavailableReason()} says why). Never throws.
     */
    List<Device> devices();

    /** Why {@link #devices()} is empty, or null. */
    default String unavailableReason() {
        return null;
    }

    /** The memory domain of this transport (shared by its interfaces in this process). */
    MemoryDomain memoryDomain();

    /** Opens an interface on {@code device} for {@code worker}. */
    Interface openInterface(UctWorker worker, Device device, InterfaceParams params);

    /** This transport's configuration variables (for {@code weft info -c}). */
    List<ConfigVar<?>> configVars();
}
