package weft.tools;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.Worker;
import weft.ucp.WorkerAddress;
import weft.ucs.WeftException;
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
import java.util.ArrayList;
import java.util.List;
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

    @Option(names = "-e", description = "the lanes and protocol thresholds chosen for an endpoint to a peer of the "
        + "kind given by --peer (transports from WEFT_TLS)")
    boolean endpoint;

    @Option(names = "--peer", paramLabel = "KIND", defaultValue = "node",
        description = {"with -e, the kind of peer (default: ${DEFAULT-VALUE}):",
            "  self    the same worker",
            "  node    another process on this node; shown with a second worker of this process, which the "
                + "same-node transports reach exactly as they reach another process",
            "  remote  a process on another node; shown with a second worker that opens only the network "
                + "transports (tcp), whose address is given without its loopback devices: only inter-node "
                + "resources can be chosen, as for a peer on another host"})
    String peer;

    @Override
    public Integer call() {
        final PrintStream out = System.out;
        if (!devices && !config && !endpoint) {
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
        if (endpoint) {
            try {
                printEndpoint(out, peer);
            } catch (final IllegalArgumentException | WeftException e) {
                System.err.println("weft info: " + e.getMessage());
                return 1;
            }
        }
        return 0;
    }

    /**
     * The address without its loopback-device entries: what a worker on another node would publish
     * and be reachable by (a loopback device reaches only its own host).
     */
    static byte[] withoutLoopback(final byte[] address) {
        final WorkerAddress a = WorkerAddress.unpack(address);
        final List<WorkerAddress.Entry> kept = new ArrayList<>();
        for (final WorkerAddress.Entry e : a.entries()) {
            boolean loopback;
            try {
                // "lo#1": another rail of lo (WEFT_TCP_RAILS)
                final String dev = e.device().indexOf('#') >= 0 ? e.device().substring(0, e.device().indexOf('#'))
                    : e.device();
                final java.net.NetworkInterface ni = java.net.NetworkInterface.getByName(dev);
                loopback = ni != null && ni.isLoopback();
            } catch (final java.net.SocketException ex) {
                loopback = false;
            }
            if (!loopback) {
                kept.add(e);
            }
        }
        if (kept.isEmpty()) {
            throw new IllegalArgumentException("the network transports have only loopback devices here: "
                + "nothing reaches a peer on another node");
        }
        return new WorkerAddress(a.uuid(), kept).pack();
    }

    /**
     * Prints the lanes and protocol thresholds of an endpoint from a worker (transports from
     * WEFT_TLS) to a peer of the given kind: self, node or remote (see the --peer help).
     */
    static void printEndpoint(final PrintStream out, final String kind) {
        if (!List.of("self", "node", "remote").contains(kind)) {
            throw new IllegalArgumentException("unknown peer kind '" + kind + "' for --peer: use self, node or remote");
        }
        try (Context ctx = Context.builder().features(Feature.TAG).name("info").build();
             Worker w = ctx.newWorker()) {
            Context peerCtx = null;
            try {
                final Worker peerWorker;
                if (kind.equals("self")) {
                    peerWorker = w;
                } else if (kind.equals("node")) {
                    peerWorker = ctx.newWorker();
                } else {
                    final List<String> net = new ArrayList<>();
                    for (final Transport t : ctx.transports()) {
                        if (t.devices().stream().allMatch(d -> d.type() == Device.Type.NET)) {
                            net.add(t.name());
                        }
                    }
                    if (net.isEmpty()) {
                        throw new IllegalArgumentException("no network transport among " + ctx.transports().stream()
                            .map(Transport::name).toList() + " (WEFT_TLS): nothing reaches a peer on another node");
                    }
                    peerCtx = Context.builder().features(Feature.TAG).transports(net.toArray(new String[0]))
                        .name("info-remote-peer").build();
                    peerWorker = peerCtx.newWorker();
                }
                byte[] peerAddress = peerWorker.address();
                if (kind.equals("remote")) {
                    peerAddress = withoutLoopback(peerAddress);
                }
                final Endpoint ep = w.connect(peerAddress);
                out.println("#");
                out.println("# Endpoint to a " + switch (kind) {
                    case "self" -> "peer in the same worker (self)";
                    case "node" -> "peer on the same node (node)";
                    default -> "peer on another node (remote)";
                });
                out.println("#   local resources: " + w.resources());
                out.println("#   peer resources:  " + WorkerAddress.unpack(peerAddress).entries().stream()
                    .map(e -> e.transport() + "/" + e.device()).toList());
                for (final String line : ep.describe().split("\n")) {
                    out.println("#   " + line);
                }
            } finally {
                if (peerCtx != null) {
                    peerCtx.close();
                }
            }
        }
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
                    + ", fixed address: " + (md.has(MemoryDomainAttributes.FIXED) ? "yes" : "no")
                    + ", symmetric rkey: " + (md.has(MemoryDomainAttributes.SYMMETRIC_RKEY) ? "yes" : "no")
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
        weft.ucp.Context.configVars(); // and the protocol layer's
        weft.ucs.memory.MemoryCopy.configVars(); // and the copy routine's
        weft.mpi.MpiConfig.configVars(); // and the MPI layer's collective thresholds, waits and message path
        weft.shmem.ShmemConfig.configVars(); // and the OpenSHMEM layer's heap size, waits and collective thresholds
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
