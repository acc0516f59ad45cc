package weft.tools;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import weft.ucs.config.Config;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigVar;
import weft.uct.Capability;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceAttributes;
import weft.uct.InterfaceParams;
import weft.uct.MemoryDomainAttributes;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/** {@code weft info}: like ucx_info. */
@Command(name = "info", mixinStandardHelpOptions = true,
    description = "Print devices, transports, configuration and version (like ucx_info).")
public final class InfoCommand implements Callable<Integer> {
    @Option(names = "-d", description = "devices and transports with capabilities and performance figures")
    boolean devices;

    @Option(names = "-c", description = "every configuration variable with its value and doc")
    boolean config;

    @Option(names = "-v", description = "version and build")
    boolean version;

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        if (!devices && !config) {
            version = true;
        }
        if (version) {
            out.println("# Weft version 0.1.0, Java " + Runtime.version() + " (" + System.getProperty("java.vm.name")
                + "), " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        }
        if (devices) {
            printDevices(out);
        }
        if (config) {
            printConfig(out);
        }
        return 0;
    }

    static void printDevices(final PrintStream out) {
        try (UctWorker worker = new UctWorker()) {
            for (final Transport t : Transports.all()) {
                out.println("#");
                out.println("# Memory domain: " + t.name());
                final MemoryDomainAttributes md = t.memoryDomain().attributes();
                out.println("#   component:  " + t.name());
                out.println("#   allocate:   " + (md.has(MemoryDomainAttributes.ALLOC) ? "yes" : "no")
                    + ", register: " + (md.has(MemoryDomainAttributes.REG) ? "yes" : "no")
                    + ", rkey_ptr: " + (md.has(MemoryDomainAttributes.RKEY_PTR) ? "yes" : "no")
                    + ", rkey size: " + md.rkeyPackedSize());
                if (t.devices().isEmpty()) {
                    out.println("#   < no usable device: " + t.unavailableReason() + " >");
                }
                for (final Device d : t.devices()) {
                    out.println("#      Transport: " + t.name());
                    out.println("#         Device: " + d.name());
                    out.println("#           Type: " + d.type().name().toLowerCase());
                    try (Interface iface = t.openInterface(worker, d, InterfaceParams.defaults())) {
                        final InterfaceAttributes a = iface.attributes();
                        out.printf("#      bandwidth: %.2f MB/sec%n", a.bandwidth() / (1 << 20));
                        out.printf("#        latency: %.0f nsec%n", a.latencyNs());
                        out.printf("#       overhead: %.0f nsec%n", a.overheadNs());
                        out.println("#       am short: " + a.amMaxShort() + ", bcopy: " + a.amMaxBcopy()
                            + ", zcopy: " + a.amMaxZcopy());
                        out.println("#   capabilities: " + Capability.describe(a.flags()));
                        out.println("# device address: " + iface.deviceAddress().length + " bytes, iface address: "
                            + iface.interfaceAddress().length + " bytes");
                    } catch (final RuntimeException e) {
                        out.println("#   < cannot open: " + e.getMessage() + " >");
                    }
                }
            }
        }
    }

    static void printConfig(final PrintStream out) {
        Transports.all(); // loads every transport, registering its variables
        weft.runtime.RuntimeConfig.all(); // and the runtime's and launcher's
        final Config c = Config.global();
        for (final ConfigVar<?> v : ConfigRegistry.all()) {
            out.println("#");
            out.println("# " + v.doc());
            out.println("# syntax: " + v.type().accepted() + "; default: " + v.defaultText()
                + "; from: " + c.source(v));
            out.println(v.envName() + "=" + c.text(v));
        }
    }
}
