package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryDomain;
import weft.uct.Transport;
import weft.uct.UctWorker;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tcp transport: active messages, put, get and atomics over TCP sockets between any two
 * processes that can reach each other over IPv4. Unlike UCX's tcp transport, gets and atomics
 * are served natively by the target's progress (no emulation over active messages needed), and
 * every remote access is checked against the target's registered regions.
 *
 * <p>Devices are the up IPv4 network interfaces of the machine (always including {@code lo}),
 * filtered by {@code WEFT_TCP_DEVICES}; {@code WEFT_TCP_RAILS} offers each of them several times (several
 * connections per peer over one network interface, for multi-rail). Connections are authenticated with the job secret
 * ({@code WEFT_JOB_SECRET}) or, when none is configured, with a random per-interface token that
 * travels in the interface address.
 */
public final class TcpTransport implements Transport {
    static final int MAX_SHORT = 256;

    static final ConfigVar<List<String>> DEVICES = ConfigRegistry.register("TCP_DEVICES", ConfigType.LIST, "all",
        "Network interfaces the tcp transport uses (names such as lo,eth0, or all).");
    static final ConfigVar<String> JOB_SECRET = ConfigRegistry.register("JOB_SECRET", ConfigType.STRING, "",
        "Shared secret that authenticates the connections of one job (set by the launcher); empty = "
            + "a random token per interface, carried in its address.");
    static final ConfigVar<Long> TX_BUF = ConfigRegistry.register("TCP_TX_BUF", ConfigType.SIZE, "256k",
        "Bytes an endpoint buffers for sending before operations return NO_RESOURCE.");
    static final ConfigVar<Long> RX_BUF = ConfigRegistry.register("TCP_RX_BUF", ConfigType.SIZE, "128k",
        "Receive buffer of each tcp connection (at least one largest active message).");
    static final ConfigVar<Long> SEG_SIZE = ConfigRegistry.register("TCP_SEG_SIZE", ConfigType.SIZE, "8k",
        "Largest bcopy active message, put_bcopy and get_bcopy of the tcp transport (max 64k).");
    static final ConfigVar<Long> KEEPIDLE = ConfigRegistry.register("TCP_KEEPIDLE", ConfigType.TIME, "10s",
        "Idle time before the kernel sends TCP keepalive probes.");
    static final ConfigVar<Long> KEEPINTVL = ConfigRegistry.register("TCP_KEEPINTVL", ConfigType.TIME, "2s",
        "Interval between TCP keepalive probes.");
    static final ConfigVar<Integer> KEEPCNT = ConfigRegistry.register("TCP_KEEPCNT", ConfigType.INT, "3",
        "Unanswered keepalive probes before the connection is declared dead.");
    static final ConfigVar<Long> USER_TIMEOUT = ConfigRegistry.register("TCP_USER_TIMEOUT", ConfigType.TIME, "20s",
        "How long sent data may stay unacknowledged before the connection is declared dead.");
    static final ConfigVar<Boolean> SHARED_SOCKET = ConfigRegistry.register("TCP_SHARED_SOCKET", ConfigType.BOOL,
        "y", "One socket per peer pair: requests and replies of both directions share the socket that the "
            + "smaller interface address opened (fewer segments per message than one socket per direction).");
    static final ConfigVar<Long> SNDBUF = ConfigRegistry.register("TCP_SNDBUF", ConfigType.SIZE, "0",
        "Kernel send buffer of each tcp socket (SO_SNDBUF); 0 = the kernel's autotuning (net.ipv4.tcp_wmem).");
    static final ConfigVar<Long> RCVBUF = ConfigRegistry.register("TCP_RCVBUF", ConfigType.SIZE, "0",
        "Kernel receive buffer of each tcp socket (SO_RCVBUF); 0 = the kernel's autotuning (net.ipv4.tcp_rmem, "
            + "up to its maximum: what a flooded receiver may have in flight beyond its unexpected budget).");
    static final ConfigVar<Long> SPLICE_THRESH = ConfigRegistry.register("TCP_SPLICE_THRESH", ConfigType.SIZE, "64k",
        "Zero-copy puts of at least this many bytes are handed to the socket by reference (vmsplice into a pipe, "
            + "splice into the socket) instead of being copied into it: the sender's kernel does not copy them; the "
            + "receiver reads them straight from the sender's pages. Safe because a put completes only when the "
            + "target acknowledged it. inf = always copy.");
    static final ConfigVar<Long> SPLICE_MAX = ConfigRegistry.register("TCP_SPLICE_MAX", ConfigType.SIZE, "1m",
        "Largest zero-copy put entry that is spliced (see TCP_SPLICE_THRESH); larger ones are copied into the "
            + "socket: past 1 MiB the splice took longer than the copy on a loaded machine (one-way 3 MiB: 1.2 ms "
            + "against 0.8, 4 MiB striped over two connections: 8.5 ms against 1.1). inf = no limit.");
    static final ConfigVar<Long> SPLICE_PIPE = ConfigRegistry.register("TCP_SPLICE_PIPE", ConfigType.SIZE, "1m",
        "Capacity asked for the splice pipe of a connection (created on its first spliced put). The kernel caps "
            + "it at fs.pipe-max-size and a per-user budget (fs.pipe-user-pages-soft); a connection whose pipe gets "
            + "less than this or 256k, whichever is smaller, copies its puts instead (a small pipe costs more calls "
            + "than the copy saves).");
    static final ConfigVar<Long> HANDSHAKE_TIMEOUT = ConfigRegistry.register("TCP_HANDSHAKE_TIMEOUT",
        ConfigType.TIME, "60s", "An accepted connection that has not authenticated by then is closed (long enough "
            + "for a peer descheduled on a crowded machine; floods are bounded by TCP_MAX_HANDSHAKES).");
    static final ConfigVar<Integer> MAX_HANDSHAKES = ConfigRegistry.register("TCP_MAX_HANDSHAKES", ConfigType.INT,
        "512", "Accepted connections that may be authenticating at once; more are closed at accept and counted as "
            + "refused (a connection flood costs at most this many sockets).");

    static final ConfigVar<Long> FAULT_TIMEOUT = ConfigRegistry.register("FAULT_TIMEOUT", ConfigType.TIME, "5s",
        "How long a tcp connection between live processes may stay broken (reset, timed out, link down) while "
            + "it reconnects and resumes, losing and repeating nothing; past it (or at once if 0) its endpoints fail.");
    static final ConfigVar<Long> REPLAY_MAX = ConfigRegistry.register("TCP_REPLAY_MAX", ConfigType.SIZE, "64m",
        "Most bytes a tcp connection keeps copied, unacknowledged by the peer, to send again after a resume "
            + "(put payloads are kept by reference). Beyond it the oldest are forgotten and a fault then fails.");
    static final ConfigVar<Long> REPLAY_WINDOW = ConfigRegistry.register("TCP_REPLAY_WINDOW", ConfigType.SIZE, "2m",
        "Copied bytes (frames, AM payloads) a tcp connection may hold unacknowledged before its endpoint answers "
            + "NO_RESOURCE until the peer acknowledges some: a sender faster than its receiver waits instead of "
            + "filling the replay log (at least 1m, at most TCP_REPLAY_MAX).");

    static final ConfigVar<Integer> RAILS = ConfigRegistry.register("TCP_RAILS", ConfigType.INT, "1",
        "Devices the tcp transport offers per network interface: with n > 1, eth0 is also offered as eth0#1 .. "
            + "eth0#(n-1), each its own interface with its own listening socket, so an endpoint can have n tcp "
            + "lanes (one connection each) to a peer over one network interface: rails for striping and lane "
            + "scheduling (WEFT_MAX_RNDV_RAILS, WEFT_MAX_RMA_RAILS, WEFT_LANE_POLICY).");

    private volatile Map<String, Integer> addresses;
    private volatile String unavailable;

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public List<Device> devices() {
        final List<Device> out = new ArrayList<>();
        for (final String n : addresses().keySet()) {
            out.add(new Device("tcp", n, Device.Type.NET));
        }
        return out;
    }

    /** Makes the next call scan the network interfaces again (tests: interfaces made and deleted). */
    void forgetDevices() {
        addresses = null;
    }

    @Override
    public String unavailableReason() {
        addresses();
        return unavailable;
    }

    /** Device name to IPv4 address (as an int), in NetworkInterface order with lo first. */
    private Map<String, Integer> addresses() {
        Map<String, Integer> m = addresses;
        if (m == null) {
            m = scan(Config.global().get(DEVICES));
            addresses = m;
        }
        return withRails(m, Config.global().get(RAILS)); // read each time: tests set it per run
    }

    private Map<String, Integer> scan(final List<String> wanted) {
        final Map<String, Integer> m = new LinkedHashMap<>();
        try {
            final List<NetworkInterface> all = Collections.list(NetworkInterface.getNetworkInterfaces());
            for (final NetworkInterface ni : all) {
                if (!ni.isUp()) {
                    continue;
                }
                if (!wanted.contains("all") && !wanted.contains(ni.getName())) {
                    continue;
                }
                for (final InetAddress a : Collections.list(ni.getInetAddresses())) {
                    if (a instanceof Inet4Address v4) {
                        final byte[] b = v4.getAddress();
                        m.putIfAbsent(ni.getName(), (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8
                            | (b[3] & 0xFF));
                    }
                }
            }
            if (!m.containsKey("lo") && (wanted.contains("all") || wanted.contains("lo"))) {
                m.put("lo", 0x7F000001); // loopback always works, even if not listed as up
            }
            if (m.isEmpty()) {
                unavailable = "no IPv4 network interface matches WEFT_TCP_DEVICES=" + String.join(",", wanted);
            }
        } catch (final SocketException e) {
            unavailable = "cannot list network interfaces: " + e.getMessage();
        }
        return Collections.unmodifiableMap(m);
    }

    /** Adds {@code name#k} (same address) for k = 1 .. rails-1 after each device. */
    private static Map<String, Integer> withRails(final Map<String, Integer> m, final int rails) {
        if (rails <= 1) {
            return m;
        }
        final Map<String, Integer> out = new LinkedHashMap<>();
        for (final Map.Entry<String, Integer> e : m.entrySet()) {
            out.put(e.getKey(), e.getValue());
            for (int k = 1; k < Math.min(rails, 16); k++) {
                out.put(e.getKey() + "#" + k, e.getValue());
            }
        }
        return Collections.unmodifiableMap(out);
    }

    @Override
    public MemoryDomain memoryDomain() {
        return TcpMemoryDomain.INSTANCE;
    }

    @Override
    public Interface openInterface(final UctWorker worker, final Device device, final InterfaceParams params) {
        final Integer ip = addresses().get(device.name());
        if (ip == null || !"tcp".equals(device.transport())) {
            throw new WeftException(Status.NO_ELEMENT, "tcp: no usable device named '" + device.name() + "'");
        }
        try {
            return new TcpInterface(this, worker, device, ip, params);
        } catch (final WeftException e) {
            // the list is scanned once per process: an interface deleted since (a test's bridge, a VPN) fails
            // its bind; look again, and say NO_ELEMENT if it is gone, so that a worker leaves it out
            final Map<String, Integer> now = scan(Config.global().get(DEVICES));
            if (withRails(now, Config.global().get(RAILS)).containsKey(device.name())) {
                throw e;
            }
            addresses = now;
            throw new WeftException(Status.NO_ELEMENT, "tcp: device '" + device.name() + "' went away: "
                + e.getMessage(), e);
        }
    }

    @Override
    public List<ConfigVar<?>> configVars() {
        return List.of(DEVICES, RAILS, JOB_SECRET, TX_BUF, RX_BUF, SEG_SIZE, SPLICE_THRESH, SPLICE_MAX, SPLICE_PIPE, KEEPIDLE,
            KEEPINTVL, KEEPCNT, USER_TIMEOUT, HANDSHAKE_TIMEOUT, MAX_HANDSHAKES, FAULT_TIMEOUT, REPLAY_MAX,
            REPLAY_WINDOW);
    }
}
