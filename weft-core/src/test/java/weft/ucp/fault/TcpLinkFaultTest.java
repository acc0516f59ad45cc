package weft.ucp.fault;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static weft.testkit.Netns.awaitOperUp;
import static weft.testkit.Netns.isRoot;
import static weft.testkit.Netns.must;
import static weft.testkit.Netns.sh;

/**
 * Two PEs ({@link LinkFaultPe}) in two network namespaces joined by one veth pair, talking over
 * tcp only; the link is taken down in the middle of their stream (tagged messages, a 256 MiB
 * rendezvous, puts with fence, fetch-adds) and brought back:
 * <ul>
 *   <li>for 1.5 s, with {@code WEFT_FAULT_TIMEOUT=10s}: the sockets time out
 *   ({@code WEFT_TCP_USER_TIMEOUT=200ms}), the connection resumes on a new socket, and both PEs
 *   check every byte and every fetch-add result;</li>
 *   <li>for 6 s, with {@code WEFT_FAULT_TIMEOUT=1s}: both PEs get an error (no hang) and exit.</li>
 * </ul>
 * Needs root and permission to create namespaces; skipped with the reason otherwise. The
 * namespaces are removed in finally.
 *
 * <pre>
 *   ns A: vA 10.233.0.1/24 ========== ns B: vB 10.233.0.2/24
 * </pre>
 */
@Timeout(180)
class TcpLinkFaultTest {

    @Test
    void aShortCutIsRiddenThroughWithEveryByteAndEveryFetchAddExact() throws Exception {
        final Outcome o = run("10s", 1500, 6);
        assertTrue(o.lines[0].startsWith("RESULT OK"), o.toString());
        assertTrue(o.lines[1].startsWith("RESULT OK"), o.toString());
        assertEquals(o.lines[0], o.lines[1], "both PEs counted the same messages: " + o);
        assertEquals(0, o.exit[0], o.toString());
        assertEquals(0, o.exit[1], o.toString());
        assertTrue(o.resumed, "the cut broke the connection and it resumed (else the test proved nothing): " + o);
    }

    @Test
    void aCutLongerThanTheLimitFailsBothPesWithAClearErrorAndNothingHangs() throws Exception {
        final Outcome o = run("1s", 6000, 20);
        for (int r = 0; r < 2; r++) {
            assertTrue(o.lines[r].startsWith("RESULT ERROR"), "rank " + r + ": " + o);
            assertTrue(o.lines[r].contains("CONNECTION_RESET") || o.lines[r].contains("ENDPOINT_TIMEOUT"), o.toString());
            assertEquals(2, o.exit[r], o.toString());
        }
    }

    /** What the two PEs reported. */
    private record Outcome(String[] lines, int[] exit, boolean resumed, String log) {
        @Override
        public String toString() {
            return "rank 0: " + lines[0] + " (exit " + exit[0] + "), rank 1: " + lines[1] + " (exit " + exit[1]
                + ")\n" + log;
        }
    }

    private Outcome run(final String faultTimeout, final long cutMs, final long seconds) throws Exception {
        Assumptions.assumeTrue(isRoot(), "not root: creating network namespaces needs root; skipped");
        final String id = HexFormat.of().formatHex(new byte[] {(byte) ThreadLocalRandom.current().nextInt()})
            + ProcessHandle.current().pid() % 1000;
        final String[] ns = {"wfA" + id, "wfB" + id};
        final String[] dev = {"vA" + id, "vB" + id};
        final List<String> created = new ArrayList<>();
        final Process[] pe = new Process[2];
        try {
            final String refused = sh("ip", "netns", "add", ns[0]);
            Assumptions.assumeTrue(refused == null, "network namespaces are not permitted here (" + refused
                + "); skipped");
            created.add(ns[0]);
            must(sh("ip", "netns", "add", ns[1]));
            created.add(ns[1]);
            must(sh("ip", "link", "add", dev[0], "netns", ns[0], "type", "veth", "peer", "name", dev[1],
                "netns", ns[1]));
            for (int r = 0; r < 2; r++) {
                must(sh("ip", "netns", "exec", ns[r], "ip", "addr", "add", "10.233.0." + (r + 1) + "/24", "dev", dev[r]));
                must(sh("ip", "netns", "exec", ns[r], "ip", "link", "set", dev[r], "up"));
                must(sh("ip", "netns", "exec", ns[r], "ip", "link", "set", "lo", "up"));
            }
            for (int r = 0; r < 2; r++) {
                awaitOperUp(ns[r], dev[r]);
            }
            final List<LinkedBlockingQueue<String>> out = new ArrayList<>();
            final StringBuilder log = new StringBuilder();
            for (int r = 0; r < 2; r++) {
                pe[r] = spawn(ns[r], dev[r], r, faultTimeout, seconds);
                out.add(lines(pe[r].getInputStream(), null));
                lines(pe[r].getErrorStream(), log);
            }
            final String[] addr = new String[2];
            for (int r = 0; r < 2; r++) {
                addr[r] = out.get(r).poll(60, TimeUnit.SECONDS);
                assertNotNull(addr[r], "rank " + r + " did not start\n" + log);
                assertTrue(addr[r].startsWith("ADDR "), addr[r] + "\n" + log);
            }
            for (int r = 0; r < 2; r++) {
                final OutputStream in = pe[r].getOutputStream();
                in.write((addr[1 - r] + "\n").getBytes(StandardCharsets.UTF_8));
                in.flush();
            }
            final String streaming = out.get(0).poll(60, TimeUnit.SECONDS);
            assertEquals("STREAMING", streaming, "rank 0\n" + log);
            Thread.sleep(1000); // in the middle of the stream
            must(sh("ip", "netns", "exec", ns[0], "ip", "link", "set", dev[0], "down"));
            Thread.sleep(cutMs);
            must(sh("ip", "netns", "exec", ns[0], "ip", "link", "set", dev[0], "up"));
            final String[] result = new String[2];
            final int[] exit = new int[2];
            for (int r = 0; r < 2; r++) {
                result[r] = out.get(r).poll(seconds + 90, TimeUnit.SECONDS);
                assertNotNull(result[r], "rank " + r + " reported nothing: hung?\n" + log);
                assertTrue(pe[r].waitFor(30, TimeUnit.SECONDS), "rank " + r + " did not exit\n" + log);
                exit[r] = pe[r].exitValue();
            }
            Thread.sleep(100); // the last stderr lines
            final String l;
            synchronized (log) {
                l = log.toString();
            }
            final Outcome o = new Outcome(result, exit, l.contains("resumed after"), l);
            System.out.println(o); // the PEs' tcp log lines (break, attempts, resume) in the test report
            return o;
        } finally {
            for (final Process p : pe) {
                if (p != null && p.isAlive()) {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            }
            for (final String n : created) {
                final String err = sh("ip", "netns", "del", n); // removes the veth pair too
                if (err != null) {
                    System.err.println("cannot remove network namespace " + n + ": " + err);
                }
            }
        }
    }

    private static Process spawn(final String ns, final String dev, final int rank, final String faultTimeout,
                                 final long seconds) throws IOException {
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final ProcessBuilder pb = new ProcessBuilder("ip", "netns", "exec", ns, java,
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            LinkFaultPe.class.getName(), String.valueOf(rank), String.valueOf(seconds));
        final Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("WEFT_"));
        env.put("WEFT_TLS", "tcp");
        env.put("WEFT_TCP_DEVICES", dev);
        env.put("WEFT_TCP_USER_TIMEOUT", "200ms");
        env.put("WEFT_FAULT_TIMEOUT", faultTimeout);
        return pb.start();
    }

    /** The lines of {@code s}, read by a daemon thread: into a queue, or appended to {@code log}. */
    private static LinkedBlockingQueue<String> lines(final java.io.InputStream s, final StringBuilder log) {
        final LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
        final Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(s, StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    if (log == null) {
                        q.add(l);
                    } else {
                        synchronized (log) {
                            log.append(l).append('\n');
                        }
                    }
                }
            } catch (final IOException e) {
                // the process is gone
            }
        });
        t.setDaemon(true);
        t.start();
        return q;
    }
}
