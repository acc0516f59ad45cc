package weft.uct;

import java.util.List;

/**
 * What the transports with one memory device share (self, shm, cma): the name, the device, a
 * start-up probe run once that may find the transport unusable here ({@link #probe}), and the
 * memory domain made on first use and shared by every interface of the process.
 *
 * @param <M> the transport's memory domain class
 */
public abstract class AbstractTransport<M extends MemoryDomain> implements Transport {
    private final String name;
    private final Device device;
    private volatile M md;
    private volatile String unavailable;
    private volatile boolean probed;

    protected AbstractTransport(final String name, final Device device) {
        this.name = name;
        this.device = device;
    }

    @Override
    public final String name() {
        return name;
    }

    /** The device, or none when the probe found the transport unusable here. */
    @Override
    public final List<Device> devices() {
        return unavailableReason() == null ? List.of(device) : List.of();
    }

    /** The device this transport offers. */
    protected final Device device() {
        return device;
    }

    @Override
    public final String unavailableReason() {
        if (!probed) {
            synchronized (this) {
                if (!probed) {
                    unavailable = probe();
                    probed = true;
                }
            }
        }
        return unavailable;
    }

    /** Runs once, at the first question: why the transport cannot work here, or null if it can. */
    protected String probe() {
        return null;
    }

    @Override
    public final M memoryDomain() {
        M m = md;
        if (m == null) {
            synchronized (this) {
                m = md;
                if (m == null) {
                    m = newMemoryDomain();
                    md = m;
                }
            }
        }
        return m;
    }

    /** Makes the memory domain (once per transport). */
    protected abstract M newMemoryDomain();
}
