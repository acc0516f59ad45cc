package weft.tools.perftest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Server and client as separate JVMs: the control path negotiates, fails cleanly where the
 * transport cannot reach the other process (self), and every failure ends both processes.
 */
class PerftestProcessTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (final Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private Process spawn(final Path outFile, final String... args) throws IOException {
        final List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-cp",
            System.getProperty("java.class.path"), "weft.tools.Main", "perftest"));
        cmd.addAll(List.of(args));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(outFile.toFile()).start();
        started.add(p);
        return p;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static int exitOf(final Process p) throws InterruptedException {
        assertTrue(p.waitFor(40, TimeUnit.SECONDS), "process did not exit");
        return p.exitValue();
    }

    @Test
    @Timeout(120)
    void serverServesSeveralClientsInTurnAndSurvivesAFailedTest(@org.junit.jupiter.api.io.TempDir final Path dir)
        throws Exception {
        final int port = freePort();
        final Path so = dir.resolve("server.txt");
        final Process server = spawn(so, "-p", "" + port, "--serve", "2", "--timeout", "30");
        // first client: a test the transport cannot run across processes (self): fails on both sides
        final Process bad = spawn(dir.resolve("c1.txt"), "127.0.0.1", "-p", "" + port, "-x", "self", "-t", "put_lat",
            "-n", "100", "--timeout", "30");
        assertEquals(1, exitOf(bad), Files.readString(dir.resolve("c1.txt")));
        // the same server then runs a good one
        final Path c2 = dir.resolve("c2.txt");
        final Process good = spawn(c2, "127.0.0.1", "-p", "" + port, "-x", "shm", "-t", "am_lat", "-n", "2000",
            "-w", "100", "-f", "--timeout", "30");
        assertEquals(0, exitOf(good), Files.readString(c2));
        assertEquals(1, exitOf(server), "one of the two tests failed: " + Files.readString(so));
        final String sout = Files.readString(so);
        assertEquals(2, sout.split("Accepted connection", -1).length - 1, sout);
        assertTrue(Files.readString(c2).lines().anyMatch(l -> l.trim().startsWith("2000 ")), "the final figures: "
            + Files.readString(c2));
    }

    @Test
    @Timeout(90)
    void shouldNegotiateAndFailCleanlyWhenSelfCannotReachThePeer(@org.junit.jupiter.api.io.TempDir final Path dir)
        throws Exception {
        final int port = freePort();
        final Path so = dir.resolve("server.txt");
        final Path co = dir.resolve("client.txt");
        final Process server = spawn(so, "-p", "" + port, "--timeout", "30");
        final Process client = spawn(co, "127.0.0.1", "-p", "" + port, "-x", "self", "-t", "put_lat", "-s", "64",
            "-n", "1000", "--timeout", "30");
        final int crc = exitOf(client);
        final int src = exitOf(server);
        final String sout = Files.readString(so);
        final String cout = Files.readString(co);
        assertEquals(1, crc, cout);
        assertEquals(1, src, sout);
        // the server got the client's parameters: its box shows the client's test and size
        assertTrue(sout.contains("Waiting for connection..."), sout);
        assertTrue(sout.contains("Accepted connection from 127.0.0.1:"), sout);
        assertTrue(sout.contains("| Test:         put latency"), sout);
        assertTrue(sout.contains("| Message size: 64"), sout);
        assertTrue(cout.contains("|    Stage     | # iterations |"), cout);
        assertTrue(cout.contains("self/memory cannot reach the peer's interface"), cout);
        assertTrue(sout.contains("self/memory cannot reach the peer's interface"), sout);
        assertFalse(server.isAlive() || client.isAlive());
        assertEquals(0, server.descendants().count() + client.descendants().count(), "no orphans");
    }

    @Test
    @Timeout(60)
    void shouldGiveUpWhenNoClientComes(@org.junit.jupiter.api.io.TempDir final Path dir) throws Exception {
        final Path so = dir.resolve("server.txt");
        final Process server = spawn(so, "-p", "" + freePort(), "--timeout", "1");
        assertEquals(1, exitOf(server));
        assertTrue(Files.readString(so).contains("no client connected to port"), Files.readString(so));
    }

    @Test
    @Timeout(60)
    void shouldFailWhenTheClientDiesDuringSetup(@org.junit.jupiter.api.io.TempDir final Path dir) throws Exception {
        final int port = freePort();
        final Path so = dir.resolve("server.txt");
        final Process server = spawn(so, "-p", "" + port, "--timeout", "20");
        final byte[] params = new PerfParams(PerfTestKind.AM_LAT, new long[] {8}, 100, 0, PerfParams.Layout.SHORT, 0,
            127, 50, "self", "").encode();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(1 + params.length);
                out.writeByte(ControlChannel.PARAMS);
                out.write(params);
                out.flush();
                break; // closing the socket = the client died
            } catch (final IOException e) {
                assertTrue(System.nanoTime() < deadline, "server never listened: " + Files.readString(so));
                Thread.sleep(50);
            }
        }
        assertEquals(1, exitOf(server));
        final String sout = Files.readString(so);
        assertTrue(sout.contains("control connection"), sout);
    }

    @Test
    @Timeout(30)
    void shouldFailWhenTheServerHangsUp() throws Exception {
        try (ServerSocket fake = new ServerSocket(0)) {
            final Thread t = new Thread(() -> {
                try (Socket s = fake.accept()) {
                    s.getInputStream().read(new byte[16]); // read a little of the parameters, then die
                } catch (final IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            t.start();
            final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("127.0.0.1", "-p", "" + fake.getLocalPort(),
                "-x", "self", "-n", "10", "--timeout", "10");
            t.join(10_000);
            assertEquals(1, r.rc());
            assertTrue(r.err().contains("closed the control connection") || r.err().contains("lost the control"),
                r.err());
        }
    }

    @Test
    @Timeout(30)
    void shouldFailClearlyWhenNoServerListensOrThePortIsTaken() throws Exception {
        final PerftestLoopbackTest.Run noServer = PerftestLoopbackTest.run("127.0.0.1", "-p", "" + freePort(),
            "-x", "self", "--timeout", "1");
        assertEquals(1, noServer.rc());
        assertTrue(noServer.err().contains("cannot connect to perftest server"), noServer.err());
        try (ServerSocket taken = new ServerSocket(0)) {
            final PerftestLoopbackTest.Run busy = PerftestLoopbackTest.run("-p", "" + taken.getLocalPort(),
                "--timeout", "1");
            assertEquals(1, busy.rc());
            assertTrue(busy.err().contains("cannot listen on TCP port " + taken.getLocalPort()), busy.err());
        }
    }

    @Test
    @Timeout(60)
    void shouldBeParsedByCompareUcx(@org.junit.jupiter.api.io.TempDir final Path dir) throws Exception {
        // the repository's own comparator (tests run in the module's folder)
        final Path script = Path.of("..", "bench", "compare.py").toAbsolutePath().normalize();
        assertTrue(Files.exists(script), script + " is part of the repository");
        final PerftestLoopbackTest.Run r = PerftestLoopbackTest.run("-l", "-x", "self", "-t", "am_lat", "-n", "500",
            "-f");
        assertEquals(0, r.rc(), r.err());
        final Path out = dir.resolve("out.txt");
        Files.writeString(out, r.out());
        final Process py;
        try {
            py = new ProcessBuilder("python3", "-c", "import runpy,sys; g=runpy.run_path(sys.argv[1], run_name='x'); "
                + "print(g['final_line'](open(sys.argv[2]).read()))", script.toString(), out.toString())
                .redirectErrorStream(true).start();
        } catch (final IOException e) {
            Assumptions.abort("no python3: " + e.getMessage());
            return;
        }
        started.add(py);
        assertTrue(py.waitFor(30, TimeUnit.SECONDS));
        final String parsed = new String(py.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, py.exitValue(), parsed);
        final double[] mine = r.finalNumbers();
        final String[] theirs = parsed.replaceAll("[\\[\\]]", "").split(",\\s*");
        assertEquals(8, theirs.length, parsed);
        for (int i = 0; i < 8; i++) {
            assertEquals(mine[i], Double.parseDouble(theirs[i]), 1e-9, parsed);
        }
    }
}
