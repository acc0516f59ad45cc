package weft.uct.tcp;

import weft.ucs.memory.LazyMemory;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.stats.Counter;
import weft.ucs.sys.LibC;
import weft.uct.AbstractMemoryDomain;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;


/**
 * One non-blocking TCP socket with its buffers: a bounded tx buffer, a ring of iovecs describing
 * what is still to be written, and an rx buffer. Knows nothing about frames; the owner (an
 * {@link TcpConnection}) parses.
 *
 * <p>Transmit path: small frames are built in the tx buffer ({@link #reserve} then
 * {@link #commit}); zero-copy data is described by iovec entries that point straight at the user's
 * memory ({@link #appendUser}). When nothing is queued, {@link #commit} sends at once with one
 * {@code send}; what the socket does not take stays queued and {@link #flushTx} writes it with
 * {@code writev} when epoll reports the socket writable. Positions {@link #bytesQueued} and
 * {@link #bytesWritten} count every byte of the stream, so that completions can wait for "all
 * bytes up to here have left".
 *
 * <p>Large put payloads may be queued as <em>spliceable</em> and go to the socket by reference
 * ({@link TcpSplicePipe}). Bytes count as written when they reach the socket, not the pipe;
 * nothing queued after them leaves before the pipe is empty.
 *
 * <p>The tx buffer is a ring with contiguous reservations: a frame that does not fit at the end starts
 * again at 0 (the tail is skipped until the head passes it); {@code head == tail} always means empty.
 *
 * <p>Single threaded (the interface's progress thread).
 */
final class TcpChannel {
    private static final int WRITEV_BATCH = 64;

    /** Told about readiness by the interface's progress. */
    interface Owner {
        void onReadable();

        void onWritable();
    }

    final TcpInterface iface;
    Owner owner;
    /** The socket; -1 while the connection is broken (between sockets). */
    int fd;
    private final Arena arena;

    /** Size of the first rx and tx buffers (malloc'd): a connection that carries small messages costs 2 KiB. */
    static final int FIRST_BUF = 1024;

    /** The rx buffer: {@link #FIRST_BUF} bytes until a frame or a full read needs more, then {@link #rxFull}. */
    MemorySegment rx;
    long rxBase;
    int rxCap;
    private final int rxFull;
    int rxHead;
    int rxTail;

    /** The tx ring: {@link #FIRST_BUF} bytes until a reservation does not fit, then {@link #txFull}. */
    MemorySegment tx;
    long txBase;
    int txCap;
    private final int txFull;
    private int txHead;
    private int txTail;

    /** What waits to be written: frames in the tx ring and user memory, as iovec entries. */
    private final TcpWriteQueue wq;
    private final TcpSplicePipe pipe = new TcpSplicePipe();

    long bytesQueued;
    long bytesWritten;
    /** send/writev calls that wrote queued frames (tests count how many writes a pattern costs). */
    long writes;

    /**
     * What the peer has not acknowledged yet, kept to be sent again on a new socket; null until the
     * handshake, and for good when resuming is off.
     */
    TcpReplayLog log;
    /** {@link #bytesQueued} where the stream (and the log) started: the peer's offsets count from it. */
    long txOrigin;
    /** Bytes of the stream being sent again after a resume (see {@link #replay}). */
    private boolean replaying;
    private final TcpReplayCursor replay = new TcpReplayCursor();
    /** Consumed stream offset at {@link #rxMark} (see {@link #consumed}). */
    private long rxConsumedBase;
    private long rxMark;

    /** The socket is connected: writes may go out. */
    boolean connected;
    /** Queue but do not transmit (a requester moving here waits for its old socket). */
    boolean held;
    /** The owner asked not to read (it cannot queue replies). */
    boolean readPaused;
    private boolean wantOut;
    /** An ACK frame is queued for the next write (one send with the frame that follows it, see TcpInterface). */
    boolean ackWaiting;
    private int interest = -1;
    long epollData;
    int slot = -1;
    boolean closed;

    TcpChannel(final TcpInterface iface, final Owner owner, final int fd, final int rxCap, final int txCap) {
        this.iface = iface;
        this.owner = owner;
        this.fd = fd;
        this.arena = Arena.ofShared();
        // small buffers first (two pages of lazy mappings would cost 8 KiB per connection); the full
        // ones are lazy mappings too, whose pages appear as they are used
        this.rxFull = rxCap;
        this.txFull = txCap;
        this.rxCap = Math.min(rxCap, FIRST_BUF);
        this.txCap = Math.min(txCap, FIRST_BUF);
        this.rx = arena.allocate(this.rxCap, 8);
        this.rxBase = rx.address();
        this.tx = arena.allocate(this.txCap, 8);
        this.txBase = tx.address();
        this.wq = new TcpWriteQueue(arena);
    }

    // ---- transmit ----

    /** Free iovec entries. */
    int iovFree() {
        return wq.free();
    }

    /** True when nothing is waiting to be written (queued, or spliced into the pipe). */
    boolean txEmpty() {
        return wq.count == 0 && pipe.bytes == 0;
    }

    /**
     * Finds {@code len} contiguous bytes in the tx buffer for a frame (and one iovec entry).
     *
     * @return the offset in {@link #tx}, or -1 if there is no room now
     */
    int reserve(final int len) {
        if (wq.full()) {
            return -1;
        }
        if (txTail >= txHead) {
            if (txCap - txTail >= len) {
                return txTail;
            }
            if (txHead > len) {
                return 0; // wrap; strict so the tail never reaches the head
            }
        } else if (txHead - txTail > len) {
            return txTail;
        }
        return txCap < txFull && len < txFull ? growTx() : -1;
    }

    /** Moves on to the full tx ring (what the first holds is written from it as plain memory); returns 0. */
    private int growTx() {
        wq.detachTx();
        tx = LazyMemory.allocate(arena, txFull);
        txBase = tx.address();
        txCap = txFull;
        txHead = 0;
        txTail = 0;
        return 0;
    }


    /** Grows the rx buffer to its full size (a lazy mapping), keeping the bytes it holds. */
    void growRx() {
        if (rxCap == rxFull) {
            return;
        }
        final MemorySegment full = LazyMemory.allocate(arena, rxFull);
        final int n = rxTail - rxHead;
        MemorySegment.copy(rx, rxHead, full, 0, n);
        rx = full;
        rxBase = full.address();
        rxCap = rxFull;
        rxHead = 0;
        rxTail = n;
    }

    /** A frame of {@code n} bytes starts at rxHead: the rx buffer grows first if only the full one holds it. */
    void fitFrame(final long n) {
        if (n > rxCap && rxCap < rxFull) {
            growRx();
        }
    }

    /** True while the tx ring is the first, small one (it grows on the first reservation that does not fit). */
    boolean txFirst() {
        return txCap < txFull;
    }

    /** Free tx bytes available for a reservation right now (conservative; the first ring grows on demand). */
    int txFree() {
        if (wq.full()) {
            return 0;
        } else if (txCap < txFull) {
            return txFull - 1;
        }
        if (txTail >= txHead) {
            return Math.max(txCap - txTail, txHead - 1);
        }
        return txHead - txTail - 1;
    }

    /**
     * Queues the {@code len} bytes just written at {@code off} (from {@link #reserve}) and, when
     * nothing else is queued, sends them at once.
     *
     * @return 0, or -errno if the socket failed
     */
    int commit(final int off, final int len) {
        txTail = off + len;
        bytesQueued += len;
        if (log != null) {
            log.copyFrames(tx, off, len);
        }
        if (wq.count == 0 && pipe.bytes == 0 && connected && !held && !replaying) {
            long n = LibC.send(fd, txBase + off, len, LibC.MSG_DONTWAIT | LibC.MSG_NOSIGNAL);
            writes++;
            if (n == len) {
                bytesWritten += len;
                txHead = 0;
                txTail = 0;
                return 0;
            }
            if (n < 0) {
                if (n != -LibC.EAGAIN) {
                    wq.push(txBase + off, len, true); // still queued: a resumed connection sends it
                    txHead = off;
                    return (int) n;
                }
                n = 0;
            }
            bytesWritten += n;
            wq.push(txBase + off + n, len - n, true);
            txHead = off + (int) n;
            setWantOut(true);
            return 0;
        }
        append(off, len);
        return ackRidesNext() ? flushTx() : 0; // the waiting ACK and this frame: one write
    }

    /** An ACK waits for the next write and the socket takes writes: whoever queues a frame writes at once. */
    boolean ackRidesNext() {
        return ackWaiting && !wantOut;
    }

    /** Queues the {@code len} bytes at {@code off} (from {@link #reserve}) without writing them yet. */
    void queue(final int off, final int len) {
        txTail = off + len;
        bytesQueued += len;
        if (log != null) {
            log.copyFrames(tx, off, len);
        }
        append(off, len);
    }

    private void append(final int off, final int len) {
        if (!wq.extendLast(txBase + off, len)) { // else coalesced with the previous frame: one iovec, one write
            wq.push(txBase + off, len, true);
        }
    }

    /**
     * Queues {@code len} bytes of user memory at {@code address} (zero copy; caller checked
     * iovFree). {@code kind} says how long the memory stays as it is, for the replay log and the
     * splice: {@link TcpReplayLog#REF} until the peer acknowledged having received it (it may then
     * be spliced when large enough), {@link TcpReplayLog#COPY} only until written (the log copies
     * it). Get replies read from a region go through {@link #appendReply}.
     */
    void appendUser(final long address, final long len, final byte kind) {
        if (len == 0) {
            return;
        }
        if (log != null) {
            if (kind == TcpReplayLog.COPY) {
                log.copyFrom(address, len);
            } else {
                log.reference(address, len);
            }
        }
        wq.push(address, len, false);
        if (kind == TcpReplayLog.REF && len >= iface.spliceThresh && len <= iface.spliceMax && !pipe.failed()) {
            wq.markLastSpliceable();
        }
        bytesQueued += len;
    }

    /**
     * Queues a get reply of {@code len} bytes read straight from {@code region} at {@code address}
     * (zero copy; caller checked iovFree): logged as {@link TcpReplayLog#VOLATILE}, never spliced.
     */
    void appendReply(final long address, final long len, final AbstractMemoryDomain.Region region) {
        if (len == 0) {
            return;
        }
        if (log != null) {
            log.referenceVolatile(address, len, region);
        }
        wq.push(address, len, false);
        bytesQueued += len;
    }

    /** Entries the write queue has room for before it grows again (for tests). */
    int iovCapacity() {
        return wq.capacity();
    }

    private static final int TCP_QUICKACK = 12;
    /** An int 0 for setsockopt, allocated once. */
    private static final long ZERO_ADDRESS = Arena.global().allocate(8, 8).address();

    /**
     * Writes as much of the queue as the socket takes.
     *
     * @return 0 (possibly with data left: then epoll watches for writability), or -errno
     */
    int flushTx() {
        ackWaiting = false;
        if (!connected) {
            return 0;
        }
        if (replaying) { // (even while held: what was written before the hold goes again first)
            final int r = replay.write(fd, log);
            if (r <= 0) {
                if (r == 0) {
                    setWantOut(true);
                }
                return r;
            }
            replaying = false;
        }
        if (held) {
            setWantOut(false); // nothing may leave now: no writability wake-ups either
            return 0;
        }
        while (wq.count > 0 || pipe.bytes > 0) {
            if (pipe.bytes > 0 || wq.headSpliceable()) {
                final int r = spliceHead();
                if (r <= 0) {
                    return r;
                }
                continue;
            }
            final int n = wq.batch(WRITEV_BATCH);
            final long w = LibC.writev(fd, wq.headEntry(), n);
            writes++;
            if (w < 0) {
                if (w == -LibC.EAGAIN) {
                    setWantOut(true);
                    return 0;
                }
                return (int) w;
            }
            bytesWritten += w;
            if (!consume(w, n)) {
                setWantOut(true); // the socket is full
                return 0;
            }
        }
        setWantOut(false);
        return 0;
    }

    /**
     * Moves the pipe's bytes into the socket, or (pipe empty) the head entry's pages into the pipe.
     *
     * @return 1 to go on, 0 when the socket is full (epoll watches for writability), or -errno
     */
    private int spliceHead() {
        if (pipe.bytes == 0) {
            if (!pipe.open(iface.splicePipe) || pipe.fillFrom(wq.headEntry()) == 0) {
                wq.clearSpliceable();
                return 1; // written the ordinary way
            }
            if (pipe.bytes == TcpWriteQueue.length(wq.headEntry())) {
                wq.headSpliced();
            }
            consume(pipe.bytes, 1);
        }
        final long s = pipe.drainTo(fd);
        if (s < 0) {
            if (s == -LibC.EAGAIN) {
                setWantOut(true);
                return 0;
            }
            return (int) s;
        }
        bytesWritten += s;
        iface.counters().add(Counter.TX_SPLICED, s);
        if (pipe.bytes > 0) {
            setWantOut(true); // the socket is full
            return 0;
        }
        return 1;
    }

    /** Drops {@code w} written bytes from the head of the queue; true if all {@code n} entries went. */
    private boolean consume(final long w, final int n) {
        final boolean all = wq.consume(w, n);
        if (wq.txReleasedTo != 0) {
            txHead = (int) (wq.txReleasedTo - txBase);
        }
        if (wq.count == 0) {
            txHead = 0;
            txTail = 0;
        }
        return all;
    }

    private void setWantOut(final boolean on) {
        wantOut = on;
        updateInterest(); // a syscall only if the interest changed (held or paused may have, too)
    }

    /** Re-registers the epoll interest if it changed (a syscall only on transitions). */
    void updateInterest() {
        if (closed || fd < 0) {
            return;
        }
        // paused reading resumes from onWritable once the tx queue drained, whoever drained it (an
        // operation call may have): so a paused socket keeps watching writability until then
        final boolean out = wantOut || !connected || readPaused && !held;
        final int want = (readPaused ? 0 : LibC.EPOLLIN) | (out ? LibC.EPOLLOUT : 0);
        if (want != interest) {
            if (interest < 0) {
                iface.events().add(fd, want, epollData);
            } else {
                iface.events().modify(fd, want, epollData);
            }
            interest = want;
        }
    }

    // ---- resume ----

    /** Starts logging what is queued from now on (the handshake is behind). */
    void startLog(final int max) {
        txOrigin = bytesQueued;
        log = new TcpReplayLog(bytesQueued, max, iface.counters());
    }

    /** The handshake was consumed: stream offsets of what this side receives count from here. */
    void markRx(final long consumedOffset) {
        rxConsumedBase = consumedOffset;
        rxMark = bytesReceived - (rxTail - rxHead);
    }

    /** Bytes of the peer's stream consumed so far (received and parsed, or streamed into memory). */
    long consumed() {
        return rxConsumedBase + bytesReceived - (rxTail - rxHead) - rxMark;
    }

    /**
     * The socket broke: closes it and forgets what it had. Bytes spliced into the pipe but not yet
     * into the socket count as written (the log holds them; a resume sends them again).
     */
    void dropSocket() {
        if (fd < 0) {
            return;
        }
        LibC.close(releaseSocket());
        bytesWritten += pipe.bytes;
        pipe.close();
        connected = false;
        wantOut = false;
        replaying = false;
    }

    /** Gives up the socket without closing it (another connection adopts it). */
    int releaseSocket() {
        final int f = fd;
        if (interest >= 0) {
            iface.events().remove(fd);
            interest = -1;
        }
        iface.unregister(this);
        fd = -1;
        return f;
    }

    /**
     * A new socket for this stream: what was received but not parsed is dropped (the peer sends it
     * again from {@link #consumed}), and nothing is written until {@link #startReplay}.
     */
    void adoptSocket(final int newFd, final boolean isConnected) {
        final long c = consumed();
        rxHead = 0;
        rxTail = 0;
        frameNeed = 0;
        peek = false;
        readPaused = false;
        markRx(c);
        fd = newFd;
        connected = isConnected;
        held = true;
        iface.register(this);
    }

    /**
     * The peer consumed {@code peerOffset} bytes of our stream: sends again what follows up to
     * what had been written, then goes on with the queue.
     *
     * @param peerOffset what the peer consumed of this stream
     * @param keepHeld the queue stays held after the replay (a switch holds this socket's new requests)
     * @return false if those bytes are not all kept (the connection cannot resume)
     */
    boolean startReplay(final long peerOffset, final boolean keepHeld) {
        final long from = txOrigin + peerOffset;
        if (log == null || !log.replayable(from, bytesWritten)) {
            return false;
        }
        log.ack(from);
        if (!log.settleForReplay(bytesWritten)) {
            return false; // a get reply to send again could not be copied (the ring is at its limit)
        }
        replaying = replay.start(from, bytesWritten, arena);
        held = keepHeld;
        return true;
    }

    /**
     * A connector's socket broke before the ACCEPT frame: what is not written of its hello is dropped
     * (the next socket starts with a resume hello); the stream after it stays queued.
     */
    void dropUnwrittenHello() {
        final long n = txOrigin - bytesWritten;
        if (log != null && n > 0) {
            consume(n, wq.count);
            bytesWritten = txOrigin;
        }
    }

    /** Bytes still to send again (for the log line). */
    long replayBytes() {
        return replay.remaining();
    }

    // ---- receive ----

    /** recv into {@code [address, +len)}: bytes, 0 at end of stream, or -errno (-EAGAIN if none). */
    long recv(final long address, final long len) {
        final long n = LibC.recv(fd, address, len, LibC.MSG_DONTWAIT);
        if (n > 0) {
            bytesReceived += n;
        }
        return n;
    }

    /** Bytes received so far (tells a read that found data from one that found none). */
    long bytesReceived;

    /** Bytes the last {@link #fill} asked for (fewer received = the socket is drained). */
    int lastAsk;
    /** Reads below this size are latency traffic worth keeping delayed ACKs for. */
    private static final int SMALL_READ = 4096;
    /**
     * Delayed-ACK mode is re-armed on one small read in this many: the kernel leaves it only when
     * its delayed-ACK timer fires (tens of ms without traffic), so a steady flow keeps it.
     */
    private static final int REARM_MASK = 63;
    private int smallReads;
    /** Frames at least this large are read up to their end only (see {@link #fill}). */
    private static final int BIG_FRAME = 16 * 1024;
    /** Bytes of the partial frame at {@link #rxHead} as told by {@link #need}; 0 if unknown. */
    private int frameNeed;
    /** A re-arm is due at the next {@link #rearmDelayedAck}. */
    private boolean ackRearm;
    /**
     * The next {@link #fill} reads at most {@link #PEEK} bytes: set when a payload was streamed
     * straight into memory, as the next frame is then likely another one (a pipeline of puts or get
     * replies), whose header alone should be read so that its payload streams too instead of
     * arriving through the rx buffer and a copy.
     */
    private boolean peek;
    /** Enough for a frame header and the largest request header. */
    private static final int PEEK = 64;
    /**
     * The next {@link #fill} reads at most this many bytes (0: no limit): a resume's ACCEPT frame
     * alone, when what follows it may be the rest of a payload streamed straight into memory.
     */
    int nextFillMax;

    /** Fills the rx buffer after the unparsed bytes; compacts first when the end is reached. */
    long fill() {
        if (rxHead == rxTail) {
            rxHead = 0;
            rxTail = 0;
        } else if (rxTail == rxCap) {
            compact();
        }
        lastAsk = rxCap - rxTail;
        if (frameNeed >= BIG_FRAME) {
            // the rest of this frame and the next header only: the read ends on (almost) a frame
            // boundary, so the next large frame is not left half read at the end of the buffer
            // where compact() would have to move up to a whole frame
            lastAsk = Math.min(lastAsk, rxHead + frameNeed + TcpFrame.HEADER - rxTail);
        }
        frameNeed = 0;
        if (peek) {
            peek = false;
            lastAsk = Math.min(lastAsk, PEEK);
        }
        if (nextFillMax > 0) {
            lastAsk = Math.min(lastAsk, nextFillMax);
            nextFillMax = 0;
        }
        final long n = recv(rxBase + rxTail, lastAsk);
        if (n > 0) {
            rxTail += (int) n;
            if (rxTail == rxCap && rxCap < rxFull) {
                growRx(); // a busy connection: the next reads take more at once
            }
            if (n < SMALL_READ && (smallReads++ & REARM_MASK) == 0) {
                ackRearm = true;
            }
        }
        return n;
    }

    /**
     * Asks for delayed ACKs again if the last reads were small. Each socket carries data one way
     * (replies aside), so the kernel never sees a "ping-pong" flow and, once its delayed-ACK timer
     * has fired, acknowledges every small segment at once inside the next recv, on the latency
     * path. TCP_QUICKACK=0 lets the ACK ride later instead (measured ~2-4 us less one-way AM
     * latency on loopback; the kernel still acknowledges every second small segment). Called by
     * progress after the owner parsed and answered, so that the extra system call runs while the
     * peer is busy, not between a receive and its reply; only one small read in
     * {@code REARM_MASK + 1} asks for it, and bulk reads never do (full segments are acknowledged
     * every second one regardless).
     */
    void rearmDelayedAck() {
        if (ackRearm) {
            ackRearm = false;
            LibC.setsockoptRaw(fd, LibC.IPPROTO_TCP, TCP_QUICKACK, ZERO_ADDRESS, 4);
        }
    }

    /**
     * The owner needs {@code need} bytes from {@link #rxHead} (a whole frame when its header is
     * known): makes room by compacting if they would not fit, and lets the next {@link #fill}
     * read no further than that frame (plus the next header) when it is large.
     */
    void need(final int need) {
        fitFrame(need);
        if (rxHead + need > rxCap) {
            compact();
        }
        frameNeed = need;
    }

    /** The owner finished streaming a payload into memory: the next read takes a header only. */
    void afterStream() {
        peek = true;
    }

    /** Moves the unparsed bytes to the start of the rx buffer. */
    void compact() {
        final int n = rxTail - rxHead;
        if (rxHead > 0) {
            MemoryCopy.copy(rx, rxHead, rx, 0, n);
            rxHead = 0;
            rxTail = n;
        }
    }

    /** Closes the socket and frees the buffers. Idempotent. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (interest >= 0) {
            iface.events().remove(fd);
        }
        iface.unregister(this);
        if (fd >= 0) {
            LibC.close(fd);
            fd = -1;
        }
        if (log != null) {
            log.close();
        }
        pipe.close();
        arena.close();
    }
}
