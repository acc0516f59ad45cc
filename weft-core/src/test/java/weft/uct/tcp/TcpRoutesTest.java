package weft.uct.tcp;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TcpRoutesTest {
    /**
     * Host A of the launcher's netns test: vnA 10.231.0.2/24 with the default route through the
     * launcher (which need not forward), vab 10.231.9.1/24 on the link to host B.
     */
    private static final String HOST_A = """
        Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
        vnA\t00000000\t0100E70A\t0003\t0\t0\t0\t00000000\t0\t0\t0
        vnA\t0000E70A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
        vab\t0009E70A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
        """;

    private static int ip(final int a, final int b, final int c, final int d) {
        return a << 24 | b << 16 | c << 8 | d;
    }

    @Test
    void theDeviceOnThePeersLinkReachesItDirectlyAndNoOtherDeviceDoes() {
        final TcpRoutes r = TcpRoutes.parse(HOST_A, Set.of(ip(10, 231, 0, 2), ip(10, 231, 9, 1)));
        final int hostBLink = ip(10, 231, 9, 2);
        final int hostBUplink = ip(10, 231, 1, 2);
        assertEquals(TcpRoutes.Reach.DIRECT, r.reach("vab", hostBLink));
        assertEquals(TcpRoutes.Reach.UNREACHABLE, r.reach("vnA", hostBLink));
        assertEquals(TcpRoutes.Reach.ROUTED, r.reach("vnA", hostBUplink));
        assertEquals(TcpRoutes.Reach.UNREACHABLE, r.reach("vab", hostBUplink));
        assertEquals(TcpRoutes.Reach.DIRECT, r.reach("vnA", ip(10, 231, 0, 1)));
        assertEquals(TcpRoutes.Reach.DIRECT, r.reach("vab#1", hostBLink), "a rail is its device");
    }

    @Test
    void ownAddressesAreDirectFromEveryDevice() {
        final TcpRoutes r = TcpRoutes.parse(HOST_A, Set.of(ip(10, 231, 0, 2), ip(10, 231, 9, 1)));
        assertEquals(TcpRoutes.Reach.DIRECT, r.reach("vab", ip(10, 231, 0, 2)));
        assertEquals(TcpRoutes.Reach.DIRECT, r.reach("vnA", ip(10, 231, 9, 1)));
    }

    @Test
    void anyRouteOfTheLongestPrefixCounts() {
        final String twoOnOneSubnet = """
            Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
            eth0\t0000000A\t00000000\t0001\t0\t0\t100\t000000FF\t0\t0\t0
            eth1\t0000000A\t00000000\t0001\t0\t0\t200\t000000FF\t0\t0\t0
            eth2\t00000000\t0100000B\t0003\t0\t0\t0\t00000000\t0\t0\t0
            """;
        final TcpRoutes r = TcpRoutes.parse(twoOnOneSubnet, Set.of());
        assertEquals(TcpRoutes.Reach.DIRECT, r.reach("eth0", ip(10, 1, 2, 3)));
        assertEquals(TcpRoutes.Reach.DIRECT, r.reach("eth1", ip(10, 1, 2, 3)));
        assertEquals(TcpRoutes.Reach.UNREACHABLE, r.reach("eth2", ip(10, 1, 2, 3)));
        assertEquals(TcpRoutes.Reach.ROUTED, r.reach("eth2", ip(192, 168, 0, 1)));
    }

    @Test
    void downRoutesAndGarbageLinesNameNoPathAndAnUnreadableTableAllowsEverything() {
        final String odd = """
            Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
            eth0\t0000000A\t00000000\t0000\t0\t0\t0\t000000FF\t0\t0\t0
            eth1\tzzzz\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0
            eth2\t0000000A
            eth3\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0
            """;
        final TcpRoutes r = TcpRoutes.parse(odd, Set.of());
        assertEquals(TcpRoutes.Reach.UNREACHABLE, r.reach("eth0", ip(10, 0, 0, 7)));
        assertEquals(TcpRoutes.Reach.UNREACHABLE, r.reach("eth1", ip(10, 0, 0, 7)));
        assertEquals(TcpRoutes.Reach.DIRECT, r.reach("eth3", ip(10, 0, 0, 7)));
        assertEquals(TcpRoutes.Reach.DIRECT, TcpRoutes.parse(null, Set.of()).reach("eth9", ip(1, 2, 3, 4)));
    }
}
