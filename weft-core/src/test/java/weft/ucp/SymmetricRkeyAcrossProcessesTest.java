package weft.ucp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.uct.conformance.Resources;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Symmetric remote keys across real processes: N = 3 PEs (child JVMs, {@link SymmetricPeerMain}) each map
 * S = 4 segments with FIXED | SYMMETRIC_RKEY over tcp (the inter-node transport). Their packed keys are
 * byte-equal segment by segment, their addresses equal (FIXED: remote address == local address), their
 * private keys all different. An observer PE (this JVM, whose own symmetric sequence earlier tests may
 * have advanced, hence not one of the N) unpacks all N × S keys: its worker holds S unpacked tcp keys,
 * not N × S, and Rkey.compare says 0 exactly for the same segment. The shared keys still reach each PE's
 * own memory (puts and gets per PE, checked by the PEs too), and one PE unmapping a segment revokes that
 * PE's copy only: INVALID_RKEY there, the others unaffected.
 */
@Timeout(120)
class SymmetricRkeyAcrossProcessesTest {
    private static final int N = 3;
    private static final int S = 4;
    private static final long LEN = 64 << 10;
    private static final HexFormat HEX = HexFormat.of();

    /** One child PE and its stdout lines. */
    private static final class Peer {
        final Process process;
        final OutputStream in;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Thread reader;
        byte[] address;
        final byte[][] keys = new byte[S][];
        final long[] bases = new long[S];
        byte[] priv;

        Peer(final int rank) throws IOException {
            final List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m",
                "-Xshare:auto", "-cp", System.getProperty("java.class.path"), SymmetricPeerMain.class.getName(),
                "tcp", Integer.toString(S), Long.toString(LEN)));
            final ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().put("WEFT_JOB_ID", "symmetric-rkey-test"); // one job: one symmetric stamp
            process = pb.start();
            in = process.getOutputStream();
            reader = Thread.ofPlatform().daemon().name("sym-peer-" + rank).start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (final IOException e) {
                    lines.add("EOF " + e);
                }
                lines.add("EOF");
            });
        }

        void send(final String command) throws IOException {
            in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        /** The next line, progressing {@code w} (if any) meanwhile; fails after 30 s. */
        String next(final Worker w) throws InterruptedException {
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (true) {
                final String l = w == null ? lines.poll(100, TimeUnit.MILLISECONDS) : lines.poll();
                if (l != null) {
                    if (l.startsWith("EOF") || l.startsWith("TIMEOUT")) {
                        throw new AssertionError("peer ended early: " + l);
                    }
                    return l;
                }
                if (w != null) {
                    w.progress();
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("peer said nothing in 30 s");
                }
            }
        }

        void readKeys() throws InterruptedException {
            String l;
            while (!(l = next(null)).equals("READY")) {
                final String[] f = l.split(" ");
                switch (f[0]) {
                    case "ADDR" -> address = HEX.parseHex(f[1]);
                    case "KEY" -> {
                        final int s = Integer.parseInt(f[1]);
                        bases[s] = Long.parseUnsignedLong(f[2], 16);
                        keys[s] = HEX.parseHex(f[3]);
                    }
                    case "PRIV" -> priv = HEX.parseHex(f[1]);
                    default -> throw new AssertionError("unexpected line from peer: " + l);
                }
            }
        }

        void stop() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            try {
                in.close();
            } catch (final IOException e) {
                // the process is gone; nothing to flush
            }
            reader.join(5000);
        }
    }

    private static Status await(final Worker w, final Request r) {
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (!r.isCompleted()) {
            if (w.progress() == 0 && System.nanoTime() > deadline) {
                throw new AssertionError("request did not complete in 20 s: " + r);
            }
        }
        final Status st = r.status();
        r.release();
        return st;
    }

    private static Status put(final Worker w, final Endpoint ep, final MemorySegment src, final long address,
                              final Rkey k) {
        final Status st = await(w, ep.put(src, 0, 8, address, k));
        return st.isError() ? st : await(w, ep.flush());
    }

    @Test
    void shouldDeduplicateSymmetricKeysOfThreeProcessesToOnePerSegment() throws Exception {
        // first use of tcp in this JVM opens /dev/random for good (the incarnation): do it before the snapshot
        try (Context warm = Context.builder().transports("tcp").build(); Worker w = warm.newWorker()) {
            w.progress();
        }
        final Resources.Snapshot before = Resources.take();
        final List<Peer> peers = new ArrayList<>();
        try {
            for (int i = 0; i < N; i++) {
                peers.add(new Peer(i));
            }
            for (final Peer p : peers) {
                p.readKeys();
            }
            // symmetric: byte-equal per segment across the N processes, distinct across segments
            for (int s = 0; s < S; s++) {
                for (final Peer p : peers) {
                    assertArrayEquals(peers.get(0).keys[s], p.keys[s], "segment " + s + ": packed keys differ");
                    assertEquals(peers.get(0).bases[s], p.bases[s], "segment " + s + ": FIXED addresses differ");
                }
                for (int t = 0; t < s; t++) {
                    assertFalse(Arrays.equals(peers.get(0).keys[s], peers.get(0).keys[t]), "segments " + t + ", " + s);
                }
            }
            // not symmetric: every process's key differs
            for (int i = 0; i < N; i++) {
                for (int j = 0; j < i; j++) {
                    assertNotEquals(0, Rkey.compare(peers.get(i).priv, peers.get(j).priv), "private keys " + j + ", " + i);
                }
            }
            try (Context ctx = Context.builder().features(Feature.values()).transports("tcp").build();
                 Worker w = ctx.newWorker(); Arena arena = Arena.ofConfined()) {
                final Endpoint[] eps = new Endpoint[N];
                final Rkey[][] rk = new Rkey[N][S];
                final Rkey[] privKeys = new Rkey[N];
                try {
                    for (int i = 0; i < N; i++) {
                        eps[i] = w.connect(peers.get(i).address);
                        for (int s = 0; s < S; s++) {
                            rk[i][s] = eps[i].unpackRkey(peers.get(i).keys[s]);
                        }
                    }
                    assertEquals(S, w.sharedRemoteKeyCount(), N + " PEs x " + S + " symmetric segments");
                    for (int i = 0; i < N; i++) {
                        privKeys[i] = eps[i].unpackRkey(peers.get(i).priv);
                    }
                    assertEquals(S + N, w.sharedRemoteKeyCount(), "private keys are one per PE");
                    for (int s = 0; s < S; s++) {
                        for (int t = 0; t < S; t++) {
                            for (int i = 0; i < N; i++) {
                                assertEquals(s == t ? 0 : Rkey.compare(rk[0][s], rk[0][t]), Rkey.compare(rk[0][s], rk[i][t]));
                            }
                        }
                        assertNotEquals(0, Rkey.compare(rk[0][s], privKeys[0]));
                    }
                    // the shared key reaches each PE's own memory
                    final MemorySegment v = arena.allocate(8, 8);
                    for (int i = 0; i < N; i++) {
                        for (int s = 0; s < S; s++) {
                            v.set(ValueLayout.JAVA_LONG, 0, (i + 1) * 100L + s);
                            assertEquals(Status.OK, put(w, eps[i], v, peers.get(i).bases[s] + 8, rk[i][s]));
                        }
                    }
                    for (int i = 0; i < N; i++) {
                        for (int s = 0; s < S; s++) {
                            v.set(ValueLayout.JAVA_LONG, 0, 0);
                            assertEquals(Status.OK, await(w, eps[i].get(v, 0, 8, peers.get(i).bases[s] + 8, rk[i][s])));
                            assertEquals((i + 1) * 100L + s, v.get(ValueLayout.JAVA_LONG, 0), "PE " + i + " segment " + s);
                        }
                    }
                    // PE 0 unmaps segment 0: its copy is revoked, the same shared key still serves PE 1
                    peers.get(0).send("UNMAP 0");
                    assertEquals("UNMAPPED 0", peers.get(0).next(w));
                    v.set(ValueLayout.JAVA_LONG, 0, 999);
                    assertEquals(Status.INVALID_RKEY, put(w, eps[0], v, peers.get(0).bases[0] + 8, rk[0][0]),
                        "put after the owner unmapped");
                    assertEquals(Status.INVALID_RKEY, await(w, eps[0].get(v, 0, 8, peers.get(0).bases[0] + 8, rk[0][0])),
                        "get after the owner unmapped");
                    v.set(ValueLayout.JAVA_LONG, 0, 201);
                    assertEquals(Status.OK, put(w, eps[1], v, peers.get(1).bases[0] + 8, rk[1][0]));
                } finally {
                    for (final Rkey[] row : rk) {
                        for (final Rkey k : row) {
                            if (k != null) {
                                k.close();
                            }
                        }
                    }
                    for (final Rkey k : privKeys) {
                        if (k != null) {
                            k.close();
                        }
                    }
                }
                assertEquals(0, w.sharedRemoteKeyCount(), "every Rkey closed: nothing held");
            }
            // the PEs saw the puts in their own memory
            for (int i = 0; i < N; i++) {
                final Peer p = peers.get(i);
                p.send("QUIT");
                String l;
                int seen = 0;
                while (!(l = p.next(null)).equals("BYE")) {
                    final String[] f = l.split(" ");
                    assertEquals("VAL", f[0], l);
                    final int s = Integer.parseInt(f[1]);
                    final long want = i == 1 && s == 0 ? 201 : (i + 1) * 100L + s;
                    assertEquals(want, Long.parseLong(f[2]), "PE " + i + " segment " + s + " as the PE sees it");
                    seen++;
                }
                assertEquals(i == 0 ? S - 1 : S, seen);
                assertEquals(true, p.process.waitFor(20, TimeUnit.SECONDS), "PE " + i + " exits");
                assertEquals(0, p.process.exitValue(), "PE " + i + " exit status");
            }
        } finally {
            for (final Peer p : peers) {
                p.stop();
            }
        }
        Resources.assertBackTo(before, "symmetric rkey test", 3000);
    }
}
