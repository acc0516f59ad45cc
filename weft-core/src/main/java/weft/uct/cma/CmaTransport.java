package weft.uct.cma;

import weft.ucs.sys.NodeIdentity;
import weft.ucs.sys.ProcessLiveness;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;
import weft.ucs.sys.LibC;
import weft.uct.AbstractTransport;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.UctWorker;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Cross-memory attach: single-copy put/get between processes of one node through
 * {@code process_vm_readv/writev}. Whether the kernel allows it (Yama ptrace scope, capabilities,
 * seccomp) is decided once by a start-up probe; when it refuses, {@link #devices()} is empty and
 * {@link #unavailableReason()} says why.
 */
public final class CmaTransport extends AbstractTransport<CmaMemoryDomain> {
    static final ConfigVar<Long> SEG_SIZE = ConfigRegistry.register("CMA_SEG_SIZE", ConfigType.SIZE, "4m",
        "Largest cma transfer done inside the call, and the bytes moved per progress for larger ones (4m, a "
            + "rendezvous chunk: 1 MiB tag_bw over shm measured 1.7x faster than with 512k, whose second half "
            + "waited for the next progress).");
    static final ConfigVar<Integer> TX_QUEUE_LEN = ConfigRegistry.register("CMA_TX_QUEUE_LEN", ConfigType.POW2,
        "64", "Operations (and flush markers) a cma interface can queue before answering NO_RESOURCE.");
    static final ConfigVar<Boolean> FORCE_UNAVAILABLE = ConfigRegistry.register("CMA_FORCE_UNAVAILABLE",
        ConfigType.BOOL, "n", "Treat cross-memory attach as refused by the kernel (disables the cma transport).");

    private final Config config;
    private final int pid = LibC.getpid();
    private volatile long startTime = -2;
    private volatile byte[] deviceAddress;

    /** The transport as {@link java.util.ServiceLoader} creates it: global configuration. */
    public CmaTransport() {
        this(Config.global());
    }

    /** A transport whose start-up probe reads {@code config} (tests force the refused outcome). */
    CmaTransport(final Config config) {
        super("cma", new Device("cma", "memory", Device.Type.SHM));
        this.config = config;
    }

    /** Asks the kernel once whether it allows cross-memory attach here. */
    @Override
    protected String probe() {
        String r;
        try {
            r = CmaProbe.probe(config.get(FORCE_UNAVAILABLE));
        } catch (final WeftException e) {
            r = e.getMessage();
        }
        if (r != null) {
            System.getLogger("weft.uct.cma").log(System.Logger.Level.INFO, "cma is unusable here: {0}", r);
        }
        return r;
    }

    @Override
    protected CmaMemoryDomain newMemoryDomain() {
        return new CmaMemoryDomain();
    }

    @Override
    public Interface openInterface(final UctWorker worker, final Device device, final InterfaceParams params) {
        final String why = unavailableReason();
        if (why != null) {
            throw new WeftException(Status.UNSUPPORTED, "cma is unavailable: " + why);
        }
        if (!device().equals(device)) {
            throw new WeftException(Status.INVALID_PARAM, "cma has no device " + device);
        }
        return new CmaInterface(this, worker, device, params);
    }

    @Override
    public List<ConfigVar<?>> configVars() {
        return List.of(SEG_SIZE, TX_QUEUE_LEN, FORCE_UNAVAILABLE);
    }

    int pid() {
        return pid;
    }

    long startTime() {
        long s = startTime;
        if (s == -2) {
            s = ProcessLiveness.startTime(pid);
            startTime = s;
        }
        return s;
    }

    /**
     * Boot id + pid namespace inode (equal on both sides means the pid names the same process) + network
     * namespace inode (the node boundary shm also keeps).
     */
    byte[] deviceAddress() {
        byte[] a = deviceAddress;
        if (a == null) {
            final byte[] boot = NodeIdentity.bootId();
            a = ByteBuffer.allocate(CmaInterface.DEVICE_ADDRESS_LENGTH).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .put(boot == null ? new byte[16] : boot).putLong(NodeIdentity.namespaceInode("pid"))
                .putLong(NodeIdentity.namespaceInode("net")).array();
            deviceAddress = a;
        }
        return a;
    }
}
