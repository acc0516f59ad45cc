package weft.runtime;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzzing of the launcher's key-value service protocol ({@link KvProtocol}, {@link KvServer}).
 *
 * <ul>
 *   <li>{@code frames}: {@link KvProtocol#read} on bytes of the fuzzer's (both sides read frames with it):
 *       a frame or IOException (EOFException included), never more memory than the bytes that arrived.</li>
 *   <li>{@code server}: a real service of a 2-PE job on loopback and one connection that authenticates with
 *       the right MAC for its rank (or sends an AUTH of the fuzzer's), then sends COMMIT, GET, FENCE,
 *       FINALIZE and other frames, well formed with fuzzed fields or raw, then ends its stream. The service
 *       must answer or close the connection within 5 s, and no RuntimeException may escape its parsing
 *       (the service logs one as an internal error).</li>
 * </ul>
 */
class KvServerFuzzTest {
    private static final String SECRET = "fuzz-secret";

    @FuzzTest(maxDuration = "2m")
    void frames(final byte[] bytes) {
        final DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        try {
            while (true) {
                final KvProtocol.Frame f = KvProtocol.read(in);
                assertTrue(f.payload().length < bytes.length, "a frame larger than its input");
            }
        } catch (final EOFException e) {
            // the end
        } catch (final IOException e) {
            assertTrue(e.getMessage().contains("malformed"), e::getMessage);
        }
    }

    @FuzzTest(maxDuration = "2m")
    void server(final FuzzedDataProvider data) throws IOException {
        final List<String> log = new CopyOnWriteArrayList<>();
        try (SilentCloseable allowed = BugDetectors.allowNetworkConnections((host, port) -> true);
             KvServer kv = KvServer.start(2, SECRET, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                 50_000_000L, log::add);
             Socket s = new Socket(InetAddress.getLoopbackAddress(), kv.port())) {
            s.setSoTimeout(5000);
            final DataInputStream in = new DataInputStream(s.getInputStream());
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            final KvProtocol.Frame hello = KvProtocol.read(in);
            final byte[] serverNonce = java.util.Arrays.copyOfRange(hello.payload(), 8, 8 + KvProtocol.NONCE_BYTES);
            if (data.consumeInt(0, 7) == 0) {
                KvProtocol.write(out, data.consumeByte(), data.consumeBytes(data.consumeInt(0, 200)));
            } else {
                final int rank = data.consumeInt(-1, 2);
                final byte[] clientNonce = data.consumeBytes(KvProtocol.NONCE_BYTES);
                final byte[] cn = java.util.Arrays.copyOf(clientNonce, KvProtocol.NONCE_BYTES);
                final byte[] mac = data.consumeBoolean() ? KvProtocol.mac(SECRET, "pe", serverNonce, cn, rank)
                    : java.util.Arrays.copyOf(data.consumeBytes(32), 32);
                KvProtocol.write(out, KvProtocol.AUTH, ByteBuffer.allocate(4 + 64).putInt(rank).put(cn).put(mac)
                    .array());
            }
            final int frames = data.consumeInt(0, 6);
            for (int i = 0; i < frames; i++) {
                final int kind = data.consumeInt(0, 6);
                switch (kind) {
                    case 0 -> { // raw bytes, framing included
                        out.write(data.consumeBytes(data.consumeInt(0, 300)));
                        out.flush();
                    }
                    case 1 -> { // COMMIT
                        final int n = data.consumeInt(0, 4);
                        final ByteBuffer b = ByteBuffer.allocate(4 + n * (2 + 64 + 4 + 64));
                        b.putInt(data.consumeBoolean() ? n : data.consumeInt());
                        for (int k = 0; k < n; k++) {
                            final byte[] key = data.consumeBytes(64);
                            final byte[] val = data.consumeBytes(64);
                            b.putShort((short) (data.consumeBoolean() ? key.length : data.consumeInt(0, 0xFFFF)))
                                .put(key);
                            b.putInt(data.consumeBoolean() ? val.length : data.consumeInt()).put(val);
                        }
                        KvProtocol.write(out, KvProtocol.COMMIT, java.util.Arrays.copyOf(b.array(), b.position()));
                    }
                    case 2 -> { // GET
                        final byte[] key = data.consumeBytes(64);
                        KvProtocol.write(out, KvProtocol.GET, ByteBuffer.allocate(6 + key.length)
                            .putInt(data.consumeInt(-1, 2))
                            .putShort((short) (data.consumeBoolean() ? key.length : data.consumeInt(0, 0xFFFF)))
                            .put(key).array());
                    }
                    case 3 -> KvProtocol.write(out, KvProtocol.FENCE, data.consumeBytes(data.consumeInt(0, 8)));
                    case 4 -> KvProtocol.write(out, KvProtocol.FINALIZE);
                    default -> KvProtocol.write(out, data.consumeByte(), data.consumeBytes(data.consumeInt(0, 100)));
                }
            }
            s.shutdownOutput();
            try {
                final InputStream raw = s.getInputStream();
                final byte[] sink = new byte[4096];
                while (raw.read(sink) >= 0) {
                    // the service's answers, until it closes the connection
                }
            } catch (final SocketTimeoutException e) {
                throw new AssertionError("the key-value service neither answered nor closed in 5 s; log: " + log, e);
            } catch (final IOException e) {
                // reset: closed
            }
        } catch (final java.net.SocketException e) {
            // the service closed the connection while we were still writing
        }
        for (final String line : log) {
            assertTrue(!line.contains("internal error"), line);
        }
    }
}
