package weft.uct.tcp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The wire format of the tcp transport: the connection handshake and the frames that follow it.
 * All integers are little endian.
 *
 * <p>Handshake (version 6: 5 plus {@link #FLAG_ASK} on any frame; 5: 4 plus SWAP as a posted set; 4: 3 plus the
 * put frames' FLAG_ACK), sent once by the connecting side before anything else:
 * <pre>
 *  0                 8          10          12          16                          48          56          64
 *  +-----------------+----------+-----------+-----------+---------------------------+-----------+-----------+-------------+
 *  | magic "WEFTTCP\0"| version  | addr len  |  flags    | SHA-256(context, secret)  |  conn id  | rx offset | connector's |
 *  |       u64       |   u16    |    u16    |    u32    |         32 bytes          |    u64    |    u64    | iface addr  |
 *  +-----------------+----------+-----------+-----------+---------------------------+-----------+-----------+-------------+
 * </pre>
 * The acceptor reads nothing else from a connection until the handshake checks out. The address
 * is the connector's interface address without its token (the acceptor needs its ip:port only, to
 * recognise the peer interface; the token would let a rogue acceptor connect back). Flag
 * {@link #HELLO_SHARE}: the connector serves requests on this socket too (one socket per peer pair),
 * once the acceptor has proven the secret with the ACCEPT frame, which is the acceptor's first
 * frame on every connection. {@code conn id} names the connection for a later resume (0: the
 * connector never resumes it). Flag {@link #HELLO_RESUME}: this socket replaces the broken socket
 * of connection {@code conn id}, and {@code rx offset} is how many bytes of the acceptor's stream
 * the connector consumed; the ACCEPT frame answers with the acceptor's own count, and each side
 * then resends its stream from the other's count (see {@link TcpReplayLog}). A connector whose
 * socket broke before its ACCEPT frame came sends {@code rx offset} -1: the acceptor resumes the
 * connection if it took the first hello, and takes this hello as a first one if it did not.
 *
 * <p>Every frame then starts with the same 8-byte header; {@code length} counts the bytes after
 * it (type-specific fields plus payload):
 * <pre>
 *  0        1        2                 4                                   8
 *  +--------+--------+-----------------+-----------------------------------+
 *  |  type  |   op   |   flags (u16)   |           length (u32)            |
 *  +--------+--------+-----------------+-----------------------------------+
 *
 *  type        op       fields after the header (offsets from frame start)        direction
 *  AM          am id    8: payload (length bytes)                                  req
 *  PUT_REQ     0        8: seq u32 | 12: 0 | 16: addr u64 | 24: region u64 |       req
 *                       32: incarnation u64 | 40: payload (length - 32);
 *                       flags: {@link #FLAG_ACK} acknowledge at once
 *  PUT_ACK     0        8: seq u32 | 12: status i32              (length 8)        reply
 *  GET_REQ     0        8: req id u32 | 12: len u32 | 16: addr | 24: region |      req
 *                       32: incarnation                          (length 32)
 *  GET_REP     0        8: req id u32 | 12: status i32 | 16: data (length - 8)     reply
 *  ATOMIC_REQ  AtomicOp 8: req id / seq u32 | 12: 0 | 16: addr | 24: region |      req
 *              ordinal  32: incarnation | 40: value u64 | 48: compare u64 (len 48)
 *              value = operand (the swap value for CSWAP), compare = CSWAP's compare value;
 *              flags: {@link #FLAG_64} 64-bit word, {@link #FLAG_POST} no result (any op but
 *              CSWAP; SWAP is then a set): acknowledged by PUT_ACK with the seq in the req id field
 *  ATOMIC_REP  0        8: req id u32 | 12: status i32 | 16: old value u64 (len 16) reply
 *  KEEPALIVE   0        (length 0)                                                 req
 *  KEEPALIVE_ACK 0      (length 0)                                                 reply
 *  ACCEPT      0        8: SHA-256(accept context, secret) | 40: rx offset u64    first frame
 *                       (length 40); flags: {@link #HELLO_SHARE} = the acceptor    acceptor -&gt;
 *                       shares the socket, {@link #ACCEPT_REFUSED} = a resume was
 *                       refused (unknown connection, or its bytes are lost), or,
 *                       with a zero digest, a hello was (the connector fails);
 *                       rx offset: the acceptor's consumed count (resume only)
 *  DETACH      0        (length 0): the sender's requester left this socket:       either way
 *                       no more requests from it (the socket closes when both
 *                       sides are detached)
 *  ACK         0        8: consumed u64 (length 8): the sender consumed that      either way
 *                       many bytes of the receiver's stream, which may forget them
 * </pre>
 * Stream offsets count the bytes of one direction after the handshake (the hello, the ACCEPT
 * frame), across every socket of the connection; ACK frames are stream bytes too. Any frame after the
 * handshake may carry {@link #FLAG_ASK} besides its own flags: the receiver answers with an ACK frame once it
 * has handled its read batch (see {@link TcpReplayLog#ASK_AT}).
 * On a shared socket both sides are requester and server at once: a frame's type says which
 * role it belongs to ({@link #isRequest}).
 * Requests flow from the connecting endpoint to the accepting interface; replies come back on
 * the same socket, in request order (PUT_ACKs are cumulative: an ack for seq n acknowledges
 * every put up to n, and its status is that of put n; OK acks are deferred: see {@link #FLAG_ACK}).
 * Anything else (unknown type, a length that does not match the type, a reply on the request side
 * or the reverse, an AM larger than {@link #MAX_AM_PAYLOAD}) is malformed and closes the connection.
 */
final class TcpFrame {
    static final long MAGIC = 0x0050435454464557L; // "WEFTTCP\0" read as LE
    static final int VERSION = 6;
    /** Hello / ACCEPT flag: this side takes part in one socket per peer pair. */
    static final int HELLO_SHARE = 1;
    /** Hello flag: this socket resumes a broken connection. */
    static final int HELLO_RESUME = 2;
    /** ACCEPT flag: the resume is refused (the connection is unknown or cannot be replayed). */
    static final int ACCEPT_REFUSED = 2;
    static final int HANDSHAKE_FIXED = 64;
    /** Offsets of the hello's connection id and consumed count. */
    static final int HELLO_ID = 48;
    static final int HELLO_RX = 56;
    static final int MAX_ADDR = 64;
    static final String SECRET_CONTEXT = "weft-tcp-v1:";
    /** A different context, so that the acceptor's proof is not the connector's digest echoed back. */
    static final String ACCEPT_CONTEXT = "weft-tcp-v2-accept:";

    static final int HEADER = 8;

    static final int AM = 1;
    static final int PUT_REQ = 2;
    static final int PUT_ACK = 3;
    static final int GET_REQ = 4;
    static final int GET_REP = 5;
    static final int ATOMIC_REQ = 6;
    static final int ATOMIC_REP = 7;
    static final int KEEPALIVE = 8;
    static final int KEEPALIVE_ACK = 9;
    static final int ACCEPT = 10;
    static final int DETACH = 11;
    static final int ACK = 12;
    static final int ACCEPT_LEN = 40;
    static final int ACK_LEN = 8;

    /** Atomic flags. */
    static final int FLAG_64 = 1;
    static final int FLAG_POST = 2;
    /**
     * PUT_REQ and post ATOMIC_REQ flag: acknowledge at once (a zero-copy put, whose memory is referenced until
     * then). Without it the target defers its PUT_ACK until a request with this flag, a KEEPALIVE (a flush's
     * question), a reply it sends anyway, or {@link TcpServerConnection#ACK_DEFER_MAX} deferred puts.
     */
    static final int FLAG_ACK = 4;
    /**
     * Any frame after the handshake: the sender asks for an ACK frame (its replay log holds many copied bytes not
     * acknowledged yet); the receiver strips it before it reads the frame's own flags.
     */
    static final int FLAG_ASK = 0x8000;
    private static final long ASK_BIT = (long) FLAG_ASK << 16;

    /** Bytes after the header of fixed-size frames (and the fixed part of PUT_REQ / GET_REP). */
    static final int PUT_REQ_FIXED = 32;
    static final int PUT_ACK_LEN = 8;
    static final int GET_REQ_LEN = 32;
    static final int GET_REP_FIXED = 8;
    static final int ATOMIC_REQ_LEN = 48;
    static final int ATOMIC_REP_LEN = 16;

    /** Largest AM payload (zcopy header + iov); every rx buffer holds at least one such frame. */
    static final int MAX_AM_HEADER = 256;
    static final int MAX_AM_ZCOPY = 64 * 1024;
    static final int MAX_AM_PAYLOAD = MAX_AM_ZCOPY + MAX_AM_HEADER;
    /** Largest put / get payload: streamed, so not bounded by buffers. */
    static final long MAX_RMA = 1L << 30;

    static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private TcpFrame() {
    }

    static void header(final MemorySegment s, final long off, final int type, final int op, final int flags,
                       final int length) {
        // one 8-byte store: type | op << 8 | flags << 16 | length << 32
        s.set(I64, off, (type & 0xFFL) | (op & 0xFFL) << 8 | (flags & 0xFFFFL) << 16 | (length & 0xFFFFFFFFL) << 32);
    }

    /** The target fields every RMA request (PUT_REQ, GET_REQ, ATOMIC_REQ) has at 16, 24 and 32. */
    static void rmaTarget(final MemorySegment s, final long off, final long address, final long region,
                          final long incarnation) {
        s.set(I64, off + 16, address);
        s.set(I64, off + 24, region);
        s.set(I64, off + 32, incarnation);
    }

    /**
     * Writes a hello at {@code off} of {@code s}: {@link #HANDSHAKE_FIXED} bytes plus {@code addr}.
     *
     * @return its length
     */
    static int hello(final MemorySegment s, final long off, final int flags, final byte[] digest, final long connId,
                     final long rxOffset, final byte[] addr) {
        s.set(I64, off, MAGIC);
        s.set(I16, off + 8, (short) VERSION);
        s.set(I16, off + 10, (short) addr.length);
        s.set(I32, off + 12, flags);
        MemorySegment.copy(digest, 0, s, ValueLayout.JAVA_BYTE, off + 16, 32);
        s.set(I64, off + HELLO_ID, connId);
        s.set(I64, off + HELLO_RX, rxOffset);
        MemorySegment.copy(addr, 0, s, ValueLayout.JAVA_BYTE, off + HANDSHAKE_FIXED, addr.length);
        return HANDSHAKE_FIXED + addr.length;
    }

    /** Writes an ACCEPT frame at {@code off} of {@code s} ({@link #HEADER} + {@link #ACCEPT_LEN} bytes). */
    static void accept(final MemorySegment s, final long off, final int flags, final byte[] digest,
                       final long rxOffset) {
        header(s, off, ACCEPT, 0, flags, ACCEPT_LEN);
        MemorySegment.copy(digest, 0, s, ValueLayout.JAVA_BYTE, off + HEADER, 32);
        s.set(I64, off + HEADER + 32, rxOffset);
    }

    static int type(final long header) {
        return (int) (header & 0xFF);
    }

    static int op(final long header) {
        return (int) (header >>> 8) & 0xFF;
    }

    static int flags(final long header) {
        return (int) (header >>> 16) & 0xFFFF;
    }

    static long length(final long header) {
        return header >>> 32;
    }

    /** True if the frame with {@code header} asks for an ACK ({@link #FLAG_ASK}). */
    static boolean asks(final long header) {
        return (header & ASK_BIT) != 0;
    }

    /** {@code header} without {@link #FLAG_ASK}. */
    static long withoutAsk(final long header) {
        return header & ~ASK_BIT;
    }

    /** Sets {@link #FLAG_ASK} in the header of the frame at {@code off} of {@code s}. */
    static void ask(final MemorySegment s, final long off) {
        s.set(I64, off, s.get(I64, off) | ASK_BIT);
    }

    static boolean isRequest(final int type) {
        return type == AM || type == PUT_REQ || type == GET_REQ || type == ATOMIC_REQ || type == KEEPALIVE;
    }
}
