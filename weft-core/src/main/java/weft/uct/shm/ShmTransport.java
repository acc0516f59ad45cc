package weft.uct.shm;

import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;
import weft.ucs.memory.SharedMemory;
import weft.uct.AbstractTransport;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.UctWorker;

import java.util.List;

/**
 * Shared-memory transport between processes of one node: each interface receives through a
 * multi-producer FIFO of fixed-size cells in a memory file that senders map; medium messages are
 * copied once into receive descriptors of the receiver; memory allocated by the memory domain is
 * mapped by peers, so put, get and atomics are plain loads, stores and CPU atomics with no work
 * by the target. Nothing is created in a file system (memfd + {@code /proc/<pid>/fd}).
 */
public final class ShmTransport extends AbstractTransport<ShmMemoryDomain> {
    static final ConfigVar<Integer> FIFO_SIZE = ConfigRegistry.register("SHM_FIFO_SIZE", ConfigType.POW2, "64",
        "Number of cells of the receive FIFO of an shm interface (a power of two).");
    static final ConfigVar<Long> FIFO_ELEM_SIZE = ConfigRegistry.register("SHM_FIFO_ELEM_SIZE", ConfigType.SIZE,
        "128", "Size of one FIFO cell; short active messages are inline up to this minus 24 bytes.");
    static final ConfigVar<Double> FIFO_RELEASE_FACTOR = ConfigRegistry.register("SHM_FIFO_RELEASE_FACTOR",
        ConfigType.DOUBLE, "0.5", "Fraction of the FIFO the receiver consumes between two releases of cells to "
            + "senders (in (0, 1]; rounded down to a power of two of cells).");
    static final ConfigVar<Long> SEG_SIZE = ConfigRegistry.register("SHM_SEG_SIZE", ConfigType.SIZE, "8k",
        "Size of a receive descriptor: the largest bcopy active message / put / get.");
    static final ConfigVar<Integer> RX_DESCS = ConfigRegistry.register("SHM_RX_DESCS", ConfigType.INT, "512",
        "Receive descriptors beyond one per FIFO cell, for handlers that keep messages.");
    static final ConfigVar<Integer> FIFO_MAX_POLL = ConfigRegistry.register("SHM_FIFO_MAX_POLL", ConfigType.INT,
        "16", "Most FIFO cells consumed by one progress call.");
    static final ConfigVar<Long> KEEPALIVE_INTERVAL = ConfigRegistry.register("SHM_KEEPALIVE_INTERVAL",
        ConfigType.TIME, "200ms", "How often progress checks that the peers of the endpoints are alive.");

    /** The transport as {@link java.util.ServiceLoader} creates it. */
    public ShmTransport() {
        super("shm", new Device("shm", "memory", Device.Type.SHM));
    }

    /** Checks that sealed memory files can be created and mapped here. */
    @Override
    protected String probe() {
        try (SharedMemory m = ShmMemoryDomain.createFile(1)) {
            m.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 1);
            return null;
        } catch (final RuntimeException | LinkageError e) {
            return "cannot create shared memory files: " + e.getMessage();
        }
    }

    @Override
    protected ShmMemoryDomain newMemoryDomain() {
        return new ShmMemoryDomain();
    }

    @Override
    public Interface openInterface(final UctWorker worker, final Device device, final InterfaceParams params) {
        return new ShmInterface(this, worker, device, memoryDomain(), params);
    }

    @Override
    public List<ConfigVar<?>> configVars() {
        return List.of(FIFO_SIZE, FIFO_ELEM_SIZE, FIFO_RELEASE_FACTOR, SEG_SIZE, RX_DESCS, FIFO_MAX_POLL, KEEPALIVE_INTERVAL);
    }
}
