package weft.uct.tcp;

import weft.ucs.Status;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;
import weft.uct.Completion;
import weft.uct.IoVector;

import java.lang.foreign.ValueLayout;

import static weft.uct.tcp.TcpFrame.I32;
import static weft.uct.tcp.TcpFrame.I64;

/**
 * The receive side of one {@link TcpEndpoint}: decodes the reply frames its connection hands over
 * (PUT_ACK, GET_REP, ATOMIC_REP, KEEPALIVE_ACK), checks each against the endpoint's outstanding
 * requests (a reply that answers nothing is malformed and closes the connection), and completes
 * them. A GET_REP larger than the rx buffer is received straight into the user's iov
 * ({@link #streamIn}) instead of through the buffer. Single threaded (progress).
 */
final class TcpReplyReader {
    private final TcpEndpoint ep;
    /** Streaming GET_REP into the iov of the head op. */
    private boolean streaming;
    private long streamLeft;
    private int streamEntry;
    private long streamEntryOff;

    TcpReplyReader(final TcpEndpoint ep) {
        this.ep = ep;
    }

    /** Handles the reply frame at rxHead: CONT, MORE, DEAD or STREAM (GET_REP larger than rx). */
    int reply(final int avail, final long hdr) {
        final TcpConnection conn = ep.conn;
        final TcpChannel c = conn.ch;
        final int h = c.rxHead;
        final int type = TcpFrame.type(hdr);
        final long len = TcpFrame.length(hdr);
        if (TcpFrame.op(hdr) != 0 || TcpFrame.flags(hdr) != 0) {
            return conn.malformed();
        }
        switch (type) {
            case TcpFrame.PUT_ACK -> {
                if (len != TcpFrame.PUT_ACK_LEN) {
                    return conn.malformed();
                }
                if (avail < TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN) {
                    return more(TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN);
                }
                final long acked = ep.ackedSeq;
                final long seq = acked + ((c.rx.get(I32, h + 8) - (int) acked) & 0xFFFFFFFFL);
                final Status st = Status.of(c.rx.get(I32, h + 12));
                if (seq > ep.putSeq || !isReplyStatus(st)) {
                    return conn.malformed();
                }
                c.rxHead = h + TcpFrame.HEADER + TcpFrame.PUT_ACK_LEN;
                ep.acked(seq, st);
            }
            case TcpFrame.GET_REP -> {
                if (len < TcpFrame.GET_REP_FIXED) {
                    return conn.malformed();
                }
                if (avail < TcpFrame.HEADER + TcpFrame.GET_REP_FIXED) {
                    return more(TcpFrame.HEADER + TcpFrame.GET_REP_FIXED);
                }
                final int r = getReply(avail, len - TcpFrame.GET_REP_FIXED);
                if (r != TcpConnection.CONT) {
                    return r;
                }
            }
            case TcpFrame.ATOMIC_REP -> {
                if (len != TcpFrame.ATOMIC_REP_LEN) {
                    return conn.malformed();
                }
                if (avail < TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN) {
                    return more(TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN);
                }
                final int slot = ep.ops.head();
                if (ep.ops.isEmpty() || ep.ops.kind[slot] != TcpOpRing.ATOMIC || c.rx.get(I32, h + 8) != (int) ep.ops.done) {
                    return conn.malformed();
                }
                final Status st = Status.of(c.rx.get(I32, h + 12));
                if (!isReplyStatus(st)) {
                    return conn.malformed();
                }
                if (st == Status.OK) {
                    final long old = c.rx.get(I64, h + 16);
                    if (ep.ops.size[slot] == 8) {
                        ep.ops.result[slot].set(ValueLayout.JAVA_LONG_UNALIGNED, ep.ops.resultOff[slot], old);
                    } else {
                        ep.ops.result[slot].set(ValueLayout.JAVA_INT_UNALIGNED, ep.ops.resultOff[slot], (int) old);
                    }
                }
                c.rxHead = h + TcpFrame.HEADER + TcpFrame.ATOMIC_REP_LEN;
                completeOp(st);
            }
            case TcpFrame.KEEPALIVE_ACK -> {
                if (len != 0 || !keepaliveAcked()) {
                    return conn.malformed();
                }
                c.rxHead = h + TcpFrame.HEADER;
            }
            default -> {
                return conn.malformed();
            }
        }
        return conn.closed ? TcpConnection.DEAD : TcpConnection.CONT;
    }

    /** A reply carries OK or an error, never IN_PROGRESS / NO_RESOURCE / BUSY. */
    private static boolean isReplyStatus(final Status st) {
        return st == Status.OK || st.isError();
    }

    private int more(final int need) {
        ep.conn.ch.need(need);
        return TcpConnection.MORE;
    }

    /** GET_REP at rxHead: CONT when handled, MORE when incomplete, STREAM, or DEAD (malformed). */
    private int getReply(final int avail, final long data) {
        final TcpConnection conn = ep.conn;
        final TcpChannel c = conn.ch;
        final int h = c.rxHead;
        final int slot = ep.ops.head();
        final byte kind = ep.ops.kind[slot];
        if (ep.ops.isEmpty() || (kind != TcpOpRing.GET_BCOPY && kind != TcpOpRing.GET_ZCOPY)
            || c.rx.get(I32, h + 8) != (int) ep.ops.done) {
            return conn.malformed();
        }
        final Status st = Status.of(c.rx.get(I32, h + 12));
        if (!isReplyStatus(st) || (st == Status.OK ? data != ep.ops.len[slot] : data != 0)) {
            return conn.malformed();
        }
        final int fixed = TcpFrame.HEADER + TcpFrame.GET_REP_FIXED;
        final boolean whole = fixed + data <= c.rxCap;
        if (whole && avail < fixed + data) {
            return more(fixed + (int) data);
        }
        ep.iface.counters().add(Counter.RX_BYTES, data);
        if (whole) {
            c.rxHead = h + fixed + (int) data;
            if (st == Status.OK) {
                if (kind == TcpOpRing.GET_BCOPY) {
                    ep.ops.unpacker[slot].unpack(c.rx, h + fixed, data);
                } else {
                    ep.ops.iov[slot].scatter(c.rx, h + fixed, data);
                }
            }
            completeOp(st);
            return TcpConnection.CONT;
        }
        // only zcopy gets exceed the rx buffer: scatter what is here, receive the rest in place
        final int take = avail - fixed;
        c.rxHead = c.rxTail;
        streaming = true;
        streamLeft = data;
        streamEntry = 0;
        streamEntryOff = 0;
        scatterStream(c.rxBase + h + fixed, take);
        return streaming ? TcpConnection.STREAM : TcpConnection.CONT;
    }

    boolean streaming() {
        return streaming;
    }

    /** Bytes of the streamed GET_REP still to come (when the endpoint leaves mid-stream). */
    long streamRemaining() {
        return streaming ? streamLeft : 0;
    }

    /** Copies {@code n} bytes at {@code address} into the iov of the head op at the stream cursor. */
    private void scatterStream(final long address, final long n) {
        final IoVector iov = ep.ops.iov[ep.ops.head()];
        long done = 0;
        while (done < n) {
            final long room = iov.length(streamEntry) - streamEntryOff;
            if (room == 0) {
                streamEntry++;
                streamEntryOff = 0;
                continue;
            }
            final long k = Math.min(room, n - done);
            MemoryCopy.copy(TcpInterface.ALL, address + done, iov.segment(streamEntry),
                iov.offset(streamEntry) + streamEntryOff, k);
            streamEntryOff += k;
            done += k;
        }
        streamAdvance(n);
    }

    private void streamAdvance(final long n) {
        streamLeft -= n;
        if (streamLeft == 0) {
            streaming = false;
            ep.conn.ch.rxHead = 0;
            ep.conn.ch.rxTail = 0;
            completeOp(Status.OK);
        }
    }

    /** Receives streamed get data straight into the user's iov: 1 progress, 0 none, -1 failed. */
    int streamIn() {
        final IoVector iov = ep.ops.iov[ep.ops.head()];
        while (iov.length(streamEntry) == streamEntryOff) {
            streamEntry++;
            streamEntryOff = 0;
        }
        final long room = Math.min(iov.length(streamEntry) - streamEntryOff, streamLeft);
        final long n = ep.conn.ch.recv(iov.segment(streamEntry).address() + iov.offset(streamEntry) + streamEntryOff, room);
        if (n == -LibC.EAGAIN) {
            return 0;
        }
        if (n <= 0) {
            ep.conn.ioFailed(Status.CONNECTION_RESET);
            return -1;
        }
        streamEntryOff += n;
        streamAdvance(n);
        return ep.failStatus() == null ? 1 : -1;
    }

    /** The endpoint failed or closed: a stream in progress is abandoned (the connection skips its rest). */
    void stop() {
        streaming = false;
    }

    /** A KEEPALIVE_ACK; false if none was owed (malformed). */
    private boolean keepaliveAcked() {
        if (ep.kaAcked == ep.kaSent) {
            return false;
        }
        ep.kaAcked++;
        return true;
    }

    /** The head op's reply is in: retire it and complete it, and the waiters now due. */
    private void completeOp(final Status st) {
        final Completion c = ep.ops.retireHead();
        if (st != Status.OK) {
            ep.iface.counters().increment(Counter.ERRORS);
        }
        if (c != null) {
            c.complete(st);
        }
        ep.completeWaiters();
    }
}
