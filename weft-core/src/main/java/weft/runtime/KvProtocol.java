package weft.runtime;

import weft.ucs.HmacSha256;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The wire format of the launcher's key-value service: frames {@code [u32 length][u8 type][payload]}
 * (length counts type + payload) over one TCP connection per PE.
 *
 * <pre>
 *   server                                   PE (rank r)
 *     HELLO  [u64 magic][32 B server nonce] --->
 *                                       <--- AUTH [u32 r][32 B client nonce][32 B HMAC("pe", ...)]
 *     WELCOME [32 B HMAC("kv", ...)]    ---> (or ERROR "wrong job secret", then close)
 *                                       <--- COMMIT [u32 n]{[u16 klen][key][u32 vlen][value]}*n
 *     OK                                --->
 *                                       <--- FENCE
 *     OK when all ranks arrived         ---> (or ERROR naming the missing or dead ranks)
 *                                       <--- GET [u32 rank][u16 klen][key]
 *     VALUE [bytes] | MISSING           --->
 *                                       <--- FINALIZE
 *     OK, close                         --->
 *                                       <--- EXIT [u32 status][reason] (shmem_global_exit)
 *     EXIT [u32 status][reason] to every other PE  <--- EXITING (each one: it stops using its peers)
 *     GO to every other PE, then OK to the sender (every PE then exits with the status; the launcher too)
 *                                       <--- ABORT [u32 status][reason] (MPI_Abort: the PE then exits)
 *     ABORT [u32 status][reason] any time ---> (the job failed: the PE exits with the status)
 * </pre>
 *
 * Both sides prove knowledge of the job secret with HMAC-SHA256 over both nonces and the rank,
 * so the secret never travels and a recorded exchange cannot be replayed.
 */
final class KvProtocol {
    static final long MAGIC = 0x5745_4654_4B56_0001L; // "WEFTKV" v1
    static final byte HELLO = 1;
    static final byte AUTH = 2;
    static final byte WELCOME = 3;
    static final byte COMMIT = 4;
    static final byte FENCE = 5;
    static final byte GET = 6;
    static final byte FINALIZE = 7;
    static final byte OK = 8;
    static final byte ERROR = 9;
    static final byte ABORT = 10;
    static final byte VALUE = 11;
    static final byte MISSING = 12;
    static final byte EXIT = 13;
    static final byte EXITING = 14;
    static final byte GO = 15;

    static final int NONCE_BYTES = 32;
    static final int MAC_BYTES = 32;
    static final int MAX_KEY_BYTES = 1024;
    static final int MAX_FRAME = 16 << 20;

    private KvProtocol() {
    }

    /** One received frame. */
    record Frame(byte type, byte[] payload) {
        ByteBuffer buffer() {
            return ByteBuffer.wrap(payload);
        }

        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    /** An ABORT frame's payload: the status every PE exits with, then the reason. */
    static byte[] abort(final int status, final String reason) {
        final byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + text.length).putInt(status).put(text).array();
    }

    /** The status of an ABORT frame's payload ({@code fallback} when it is too short to hold one). */
    static int abortStatus(final byte[] payload, final int fallback) {
        return payload.length < 4 ? fallback : ByteBuffer.wrap(payload).getInt();
    }

    /** The reason of an ABORT frame's payload. */
    static String abortReason(final byte[] payload) {
        return payload.length < 4 ? new String(payload, StandardCharsets.UTF_8)
            : new String(payload, 4, payload.length - 4, StandardCharsets.UTF_8);
    }

    static byte[] nonce() {
        final byte[] n = new byte[NONCE_BYTES];
        weft.ucs.sys.KernelRandom.nextBytes(n);
        return n;
    }

    /** HMAC-SHA256 keyed by the secret over label, both nonces and the rank. */
    static byte[] mac(final String secret, final String label, final byte[] serverNonce, final byte[] clientNonce,
                      final int rank) {
        return new HmacSha256(secret.getBytes(StandardCharsets.UTF_8))
            .update(label.getBytes(StandardCharsets.US_ASCII))
            .update(serverNonce)
            .update(clientNonce)
            .update(ByteBuffer.allocate(4).putInt(0, rank).array())
            .doFinal();
    }

    static void write(final DataOutputStream out, final byte type, final byte[] payload) throws IOException {
        out.writeInt(1 + payload.length);
        out.writeByte(type);
        out.write(payload);
        out.flush();
    }

    static void write(final DataOutputStream out, final byte type) throws IOException {
        write(out, type, new byte[0]);
    }

    static void writeText(final DataOutputStream out, final byte type, final String text) throws IOException {
        write(out, type, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads one frame.
     *
     * @throws EOFException at a clean end of stream before the frame
     * @throws IOException  on a malformed length
     */
    static Frame read(final DataInputStream in) throws IOException {
        final int len = in.readInt();
        if (len < 1 || len > MAX_FRAME) {
            throw new IOException("malformed key-value frame (length " + len + ")");
        }
        final byte type = in.readByte();
        // read before allocating: the buffer grows with the bytes that arrive, not with what the length
        // claims (a peer that sends 5 bytes must not make us allocate 16 MiB)
        final byte[] payload = in.readNBytes(len - 1);
        if (payload.length != len - 1) {
            throw new EOFException("key-value frame ends after " + payload.length + " of " + (len - 1) + " bytes");
        }
        return new Frame(type, payload);
    }

    static byte[] keyBytes(final String key) {
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        if (k.length == 0 || k.length > MAX_KEY_BYTES) {
            throw new WeftException(Status.INVALID_PARAM, "bootstrap key must have 1.." + MAX_KEY_BYTES
                + " UTF-8 bytes, got " + k.length);
        }
        return k;
    }

    static String readKey(final ByteBuffer b) {
        final int klen = Short.toUnsignedInt(b.getShort());
        if (klen == 0 || klen > MAX_KEY_BYTES || klen > b.remaining()) {
            throw new IllegalArgumentException("bad key length " + klen);
        }
        final byte[] k = new byte[klen];
        b.get(k);
        return new String(k, StandardCharsets.UTF_8);
    }

    static byte[] getRequest(final int rank, final String key) {
        final byte[] k = keyBytes(key);
        return ByteBuffer.allocate(6 + k.length).putInt(rank).putShort((short) k.length).put(k).array();
    }
}
