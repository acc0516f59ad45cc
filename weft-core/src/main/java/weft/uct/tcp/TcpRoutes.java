package weft.uct.tcp;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The IPv4 routing table of this network namespace ({@code /proc/net/route}), read on the setup path
 * to judge which local device reaches a peer's address and whether a gateway lies between.
 *
 * <p>Weft's sockets are not bound to a device: the kernel sends through whatever device its route
 * names. A device pair is therefore a real path only if the route to the peer leaves through the
 * local device; otherwise a lane "from" that device would share another device's link (no extra rail)
 * or, with two subnets joined only through a host that does not forward, not work at all.
 * Without a readable table (not Linux) every pair counts as reachable and direct, as before.
 */
final class TcpRoutes {
    /** The answer for one device and one peer address. */
    enum Reach { UNREACHABLE, ROUTED, DIRECT }

    private static final int RTF_UP = 0x1;
    private static final int RTF_GATEWAY = 0x2;

    private record Route(String device, int destination, int mask, boolean gateway) {
    }

    private final List<Route> routes;
    private final Set<Integer> ownAddresses;

    private TcpRoutes(final List<Route> routes, final Set<Integer> ownAddresses) {
        this.routes = routes;
        this.ownAddresses = ownAddresses;
    }

    /** This namespace's table now; an empty (permissive) table if it cannot be read. */
    static TcpRoutes load() {
        return parse(read(Path.of("/proc/net/route")), ownAddresses());
    }

    /** Parses the text of {@code /proc/net/route}; null text means "unknown" (permissive). */
    static TcpRoutes parse(final String table, final Set<Integer> ownAddresses) {
        final List<Route> out = new ArrayList<>();
        if (table != null) {
            for (final String line : table.split("\n")) {
                final String[] f = line.trim().split("\\s+");
                if (f.length < 8 || f[0].equals("Iface")) {
                    continue;
                }
                try {
                    final int flags = Integer.parseInt(f[3], 16);
                    if ((flags & RTF_UP) == 0) {
                        continue;
                    }
                    // the kernel prints addresses as host-order (little-endian) hex of network-order words
                    out.add(new Route(f[0], Integer.reverseBytes(Integer.parseUnsignedInt(f[1], 16)),
                        Integer.reverseBytes(Integer.parseUnsignedInt(f[7], 16)), (flags & RTF_GATEWAY) != 0));
                } catch (final NumberFormatException e) {
                    // a line this parser does not understand names no usable route: skip it, keep the rest
                    continue;
                }
            }
        }
        return new TcpRoutes(List.copyOf(out), Set.copyOf(ownAddresses));
    }

    /**
     * How {@code device} (a device name, rail suffix {@code #k} allowed) reaches {@code ip}: DIRECT if
     * a longest-prefix route to it leaves through that device without a gateway (or the address is
     * this host's own), ROUTED if through a gateway, UNREACHABLE if the kernel would use another device.
     */
    Reach reach(final String device, final int ip) {
        if (routes.isEmpty() || ownAddresses.contains(ip)) {
            return Reach.DIRECT;
        }
        final int hash = device.indexOf('#');
        final String dev = hash < 0 ? device : device.substring(0, hash);
        int best = -1;
        Reach reach = Reach.UNREACHABLE;
        for (final Route r : routes) {
            if ((ip & r.mask) != r.destination) {
                continue;
            }
            final int prefix = Integer.bitCount(r.mask);
            if (prefix > best) {
                best = prefix;
                reach = Reach.UNREACHABLE;
            }
            if (prefix == best && r.device.equals(dev)) {
                final Reach here = r.gateway ? Reach.ROUTED : Reach.DIRECT;
                if (here.compareTo(reach) > 0) {
                    reach = here;
                }
            }
        }
        return reach;
    }

    private static String read(final Path p) {
        try {
            return Files.readString(p);
        } catch (final IOException | SecurityException e) {
            return null;
        }
    }

    private static Set<Integer> ownAddresses() {
        final Set<Integer> own = new HashSet<>();
        try {
            for (final NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (final InetAddress a : Collections.list(ni.getInetAddresses())) {
                    if (a instanceof Inet4Address v4) {
                        final byte[] b = v4.getAddress();
                        own.add((b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF));
                    }
                }
            }
        } catch (final SocketException e) {
            return own; // unknown: the route table alone decides
        }
        return own;
    }
}
