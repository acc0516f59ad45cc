package weft.uct.tcp;

import weft.ucs.Status;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.UctWorker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

/**
 * Manual benchmark (not a test): 8-byte AM ping-pong with a {@link TcpPeerMain} child JVM over
 * loopback; prints the half round trip. Run with
 * {@code java --enable-native-access=ALL-UNNAMED -cp weft-core/target/classes:weft-core/target/test-classes
 * weft.uct.tcp.TcpPingPong [iterations]}.
 */
public final class TcpPingPong {
    private static long echoes;

    private TcpPingPong() {
    }

    public static void main(final String[] args) throws Exception {
        final int iters = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        final Process child = TcpProcessTest.spawnPeer();
        try (UctWorker w = new UctWorker(); Arena arena = Arena.ofConfined()) {
            final BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream()));
            final String[] p = r.readLine().split(" ");
            final HexFormat hex = HexFormat.of();
            final Interface iface = new TcpTransport().openInterface(w, TcpTestSupport.LO, InterfaceParams.defaults());
            iface.setAmHandler(2, (d, o, l, f) -> {
                echoes++;
                return Status.OK;
            });
            final Endpoint ep = iface.connect(hex.parseHex(p[1]), hex.parseHex(p[2]));
            final PrintStream out = new PrintStream(child.getOutputStream(), true);
            out.println("CONNECT " + hex.formatHex(iface.deviceAddress()) + " " + hex.formatHex(iface.interfaceAddress()));
            while (!"CONNECTED".equals(r.readLine())) {
                iface.progress();
            }
            final MemorySegment payload = arena.allocate(8);
            for (int round = 0; round < 3; round++) {
                final long start = System.nanoTime();
                for (int i = 0; i < iters; i++) {
                    final long want = echoes + 1;
                    while (ep.amShort(1, i, payload, 0, 8) != Status.OK) {
                        iface.progress();
                    }
                    while (echoes < want) {
                        iface.progress();
                    }
                }
                final double ns = (System.nanoTime() - start) / (double) iters / 2;
                System.out.printf("round %d: 8-byte AM one-way latency %.2f us (%d round trips)%n", round, ns / 1000,
                    iters);
            }
            // 8-byte get round trips: request and reply share one socket
            final weft.uct.RemoteKey rkey = new TcpTransport().memoryDomain().unpackRkey(hex.parseHex(p[3]));
            final long base = Long.parseLong(p[4]);
            final weft.uct.Completion c = new weft.uct.Completion();
            final weft.uct.IoVector iov = weft.uct.IoVector.of(payload, 0, 8);
            for (int round = 0; round < 3; round++) {
                final long start = System.nanoTime();
                for (int i = 0; i < iters; i++) {
                    c.reset(1);
                    if (ep.getZcopy(iov, base, rkey, c) != Status.IN_PROGRESS) {
                        throw new IllegalStateException("get failed");
                    }
                    while (!c.isDone()) {
                        iface.progress();
                    }
                }
                final double ns = (System.nanoTime() - start) / (double) iters / 2;
                System.out.printf("round %d: 8-byte get half round trip %.2f us%n", round, ns / 1000);
            }
            // put bandwidth: 512 KiB put_zcopy into the peer's 1 MiB region, 8 in flight
            final MemorySegment big = arena.allocate(512 << 10, 64);
            final weft.uct.IoVector bigIov = weft.uct.IoVector.of(big, 0, 512 << 10);
            for (int round = 0; round < 3; round++) {
                final int n = 2000;
                final long start = System.nanoTime();
                c.reset(n);
                for (int i = 0; i < n; i++) {
                    Status st;
                    while ((st = ep.putZcopy(bigIov, base + ((i & 1) << 19), rkey, c)) == Status.NO_RESOURCE
                        || c.count() > n - i + 8) {
                        if (st == Status.IN_PROGRESS) {
                            break;
                        }
                        iface.progress();
                    }
                    if (st == Status.OK) {
                        c.complete(Status.OK);
                    }
                    while (c.count() > n - i + 8 - 1) {
                        iface.progress();
                    }
                }
                while (!c.isDone()) {
                    iface.progress();
                }
                final double s = (System.nanoTime() - start) / 1e9;
                System.out.printf("round %d: put_zcopy 512 KiB: %.0f MB/s%n", round, n * (512.0 * 1024) / s / 1e6);
            }
        } finally {
            child.destroyForcibly();
            child.waitFor();
        }
    }
}
