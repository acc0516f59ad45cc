package weft.uct.self;

import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryDomain;
import weft.uct.Transport;
import weft.uct.UctWorker;

import java.util.List;

/** Loopback to the same interface: messages are delivered to the sender's own handlers. */
public final class SelfTransport implements Transport {
    static final ConfigVar<Long> SEG_SIZE = ConfigRegistry.register("SELF_SEG_SIZE", ConfigType.SIZE, "8k",
        "Largest bcopy active message of the self transport.");

    private static final Device DEVICE = new Device("self", "memory", Device.Type.SELF);
    private volatile SelfMemoryDomain md;

    @Override
    public String name() {
        return "self";
    }

    @Override
    public List<Device> devices() {
        return List.of(DEVICE);
    }

    @Override
    public MemoryDomain memoryDomain() {
        SelfMemoryDomain m = md;
        if (m == null) {
            synchronized (this) {
                m = md;
                if (m == null) {
                    m = new SelfMemoryDomain();
                    md = m;
                }
            }
        }
        return m;
    }

    @Override
    public Interface openInterface(final UctWorker worker, final Device device, final InterfaceParams params) {
        return new SelfInterface(this, worker, device, (SelfMemoryDomain) memoryDomain(), params);
    }

    @Override
    public List<ConfigVar<?>> configVars() {
        return List.of(SEG_SIZE);
    }
}
