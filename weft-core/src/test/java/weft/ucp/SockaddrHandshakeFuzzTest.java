package weft.ucp;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import weft.testkit.FuzzBytes;
import weft.ucs.WeftException;
import weft.ucs.config.Config;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzzing of the listener handshake ({@link SockaddrHandshake}), both sides.
 *
 * <ul>
 *   <li>{@code serve}: the server reads a client's REQUEST (and the worker address after it) from bytes the
 *       fuzzer builds: raw, or well formed with fuzzed fields, signed with the right MAC for the nonce or
 *       not. It may only return the client (only when the MAC is right), return null after refusing, or
 *       throw IOException (the stream ended).</li>
 *   <li>{@code connect}: a fake listener on loopback sends a HELLO and a REPLY the fuzzer builds (signed
 *       right or not) to the real client, which may only return (only for a right MAC and a valid
 *       address) or throw {@link WeftException}, within its connect timeout.</li>
 * </ul>
 */
class SockaddrHandshakeFuzzTest {
    private static final byte[] KEY = SockaddrHandshake.key(Config.global());
    private static final byte[] NONCE = new byte[SockaddrHandshake.NONCE];
    private static byte[] address;
    private static ServerSocket fake;

    private static synchronized byte[] address() {
        if (address == null) {
            FuzzBytes.quietWhileFuzzing();
            try (Context ctx = Context.builder().transports("self").build(); Worker w = ctx.newWorker()) {
                address = w.address();
            }
        }
        return address;
    }

    private static byte[] le128(final long a, final long b) {
        return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(a).putLong(b).array();
    }

    @AfterAll
    static synchronized void tearDown() throws IOException {
        if (fake != null) {
            fake.close();
            fake = null;
        }
    }

    @FuzzTest(maxDuration = "2m")
    void serve(final FuzzedDataProvider data) {
        final byte[] local = address();
        final byte[] input;
        boolean signed = false;
        if (data.consumeBoolean()) {
            input = data.consumeRemainingAsBytes();
        } else {
            final long sn = data.consumeBoolean() ? SockaddrHandshake.LISTENER_SN | data.consumeInt() : data.consumeLong();
            final long clientId = data.consumeLong();
            final byte[] addr = FuzzBytes.edit(data, local);
            final int len = data.consumeBoolean() ? addr.length : data.consumeInt();
            signed = data.consumeBoolean();
            final byte[] mac = signed ? SockaddrHandshake.mac(KEY, (byte) 'C', NONCE, le128(sn, clientId), addr)
                : data.consumeBytes(32);
            final ByteBuffer b = ByteBuffer.allocate(SockaddrHandshake.REQUEST_FIXED + addr.length)
                .order(ByteOrder.LITTLE_ENDIAN);
            b.putLong(SockaddrHandshake.MAGIC).putShort((short) (data.consumeBoolean() ? SockaddrHandshake.VERSION
                : data.consumeInt(0, 0xFFFF))).putShort((short) 0).putInt(len).putLong(sn).putLong(clientId);
            b.put(java.util.Arrays.copyOf(mac, 32)).put(addr);
            input = b.array();
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final SockaddrHandshake.Incoming in;
        try {
            in = SockaddrHandshake.serve(new ByteArrayInputStream(input), out, "fuzz", KEY, local, NONCE);
        } catch (final IOException e) {
            return; // declared: the client's bytes ended early
        }
        final byte[] o = out.toByteArray();
        assertTrue(o.length >= SockaddrHandshake.HELLO + SockaddrHandshake.REPLY_FIXED, "hello and an answer");
        if (in != null) {
            assertTrue(signed, "accepted without the right MAC");
            assertEquals(0, o[SockaddrHandshake.HELLO], "accepted: result OK");
            assertArrayEquals(in.remote().pack(), java.util.Arrays.copyOfRange(input, SockaddrHandshake.REQUEST_FIXED,
                input.length), "the address it read is the one sent");
        } else {
            assertTrue(o[SockaddrHandshake.HELLO] != 0, "refused: result not OK");
        }
    }

    @FuzzTest(maxDuration = "2m")
    void connect(final FuzzedDataProvider data) throws Exception {
        final byte[] local = address();
        synchronized (SockaddrHandshakeFuzzTest.class) {
            if (fake == null) {
                fake = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            }
        }
        final boolean rawHello = data.consumeInt(0, 7) == 0;
        final byte[] helloBytes = rawHello ? data.consumeBytes(data.consumeInt(0, 64))
            : ByteBuffer.allocate(SockaddrHandshake.HELLO).order(ByteOrder.LITTLE_ENDIAN).putLong(SockaddrHandshake.MAGIC)
            .putShort((short) SockaddrHandshake.VERSION).putShort((short) 0).putInt(0).put(NONCE).array();
        final int result = data.consumeBoolean() ? 0 : data.consumeInt(0, 255);
        final byte[] addr = FuzzBytes.edit(data, local);
        final int len = data.consumeBoolean() ? addr.length : data.consumeInt();
        final boolean signed = data.consumeBoolean();
        final byte[] junkMac = data.consumeBytes(32);
        final boolean closeEarly = data.consumeInt(0, 7) == 0;
        final Thread server = Thread.ofPlatform().daemon().start(() -> {
            try (Socket s = fake.accept()) {
                s.setSoTimeout(3000);
                final OutputStream out = s.getOutputStream();
                out.write(helloBytes);
                out.flush();
                if (rawHello || closeEarly) {
                    return;
                }
                final DataInputStream in = new DataInputStream(s.getInputStream());
                final byte[] fixed = new byte[SockaddrHandshake.REQUEST_FIXED];
                in.readFully(fixed);
                final int n = ByteBuffer.wrap(fixed).order(ByteOrder.LITTLE_ENDIAN).getInt(12);
                in.readFully(new byte[n]);
                final byte[] macC = java.util.Arrays.copyOfRange(fixed, 32, 64);
                final byte[] mac = signed ? SockaddrHandshake.mac(KEY, (byte) 'S', NONCE, macC, addr) : junkMac;
                out.write(ByteBuffer.allocate(SockaddrHandshake.REPLY_FIXED + addr.length).order(ByteOrder.LITTLE_ENDIAN)
                    .put((byte) result).put((byte) 0).putShort((short) 0).putInt(len)
                    .put(java.util.Arrays.copyOf(mac, 32)).put(addr).array());
                out.flush();
            } catch (final IOException e) {
                // the client gave up: fine
            }
        });
        final Config c = Config.global().with("CONNECT_TIMEOUT", "3s");
        final int port = fake.getLocalPort();
        // Jazzer's SSRF detector: the one connection this test means is to its own fake listener
        try (SilentCloseable allowed = BugDetectors.allowNetworkConnections((host, p) -> p == port);
             SockaddrHandshake.Client cl = SockaddrHandshake.connect(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), fake.getLocalPort()), local,
                 SockaddrHandshake.nextSn(), 7L, c,
                 SockaddrHandshake.deadline(c), null)) {
            assertTrue(signed && result == 0, "accepted a listener without the right MAC");
            assertArrayEquals(addr, cl.remote().pack());
        } catch (final WeftException e) {
            assertTrue(e.status() != weft.ucs.Status.TIMED_OUT, () -> "timed out: " + e.getMessage());
        }
        server.join(5000);
    }
}
