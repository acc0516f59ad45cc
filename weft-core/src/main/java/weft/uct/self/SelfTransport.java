package weft.uct.self;

import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;
import weft.uct.AbstractTransport;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.UctWorker;

import java.util.List;

/** Loopback to the same interface: messages are delivered to the sender's own handlers. */
public final class SelfTransport extends AbstractTransport<SelfMemoryDomain> {
    static final ConfigVar<Long> SEG_SIZE = ConfigRegistry.register("SELF_SEG_SIZE", ConfigType.SIZE, "8k",
        "Largest bcopy active message of the self transport.");

    /** The transport as {@link java.util.ServiceLoader} creates it. */
    public SelfTransport() {
        super("self", new Device("self", "memory", Device.Type.SELF));
    }

    @Override
    protected SelfMemoryDomain newMemoryDomain() {
        return new SelfMemoryDomain();
    }

    @Override
    public Interface openInterface(final UctWorker worker, final Device device, final InterfaceParams params) {
        return new SelfInterface(this, worker, device, memoryDomain(), params);
    }

    @Override
    public List<ConfigVar<?>> configVars() {
        return List.of(SEG_SIZE);
    }
}
