package weft.tools.perftest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Runs, failed runs and refused setups release every file descriptor they opened. */
class PerftestResourceTest {
    private static int openFds() {
        final String[] fds = new File("/proc/self/fd").list();
        return fds == null ? -1 : fds.length;
    }

    @Test
    @Timeout(60)
    void shouldNotLeakFileDescriptors() throws Exception {
        // warm up class loading and lazily opened JDK descriptors once
        PerftestLoopbackTest.run("-l", "-x", "self", "-n", "100", "-w", "0", "-f");
        PerftestLoopbackTest.run("127.0.0.1", "-p", "" + freePort(), "-x", "self", "--timeout", "1");
        final int before = openFds();
        for (int i = 0; i < 3; i++) {
            assertEquals(0, PerftestLoopbackTest.run("-l", "-x", "self", "-t", "put_bw", "-D", "zcopy", "-n", "500",
                "-w", "0", "-f").rc());
            assertEquals(1, PerftestLoopbackTest.run("-l", "-x", "self", "-t", "get", "-n", "10").rc());
            assertEquals(1, PerftestLoopbackTest.run("127.0.0.1", "-p", "" + freePort(), "-x", "self",
                "--timeout", "1").rc());
            try (ServerSocket fake = new ServerSocket(0)) {
                final Thread t = new Thread(() -> {
                    try (Socket s = fake.accept()) {
                        s.getInputStream().read(new byte[8]);
                    } catch (final IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                t.start();
                assertEquals(1, PerftestLoopbackTest.run("127.0.0.1", "-p", "" + fake.getLocalPort(), "-x", "self",
                    "--timeout", "5").rc());
                t.join(5000);
            }
        }
        assertEquals(before, openFds(), "file descriptors leaked");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
