package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucp.wire.ControlMessage;
import weft.ucp.wire.EagerGetHeader;
import weft.uct.MemoryDomainAttributes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * GET-based eager for medium tag messages (the E1 protocol of Cray's GNI netmod): the sender copies the
 * message into a slot of its worker's eager pool, memory the peer maps (a shared file of the AM lane's
 * transport), sends only the header, and its request completes at once as an eager send's does; the
 * receiver reads the body straight from the mapping (into the posted buffer when the receive is
 * expected, else into its unexpected store, as an eager message) and gives the slot back. Compared
 * with a multi-fragment eager send it saves a message per fragment; compared with a rendezvous, the
 * round trip and the sender's wait.
 *
 * <p>Used for contiguous and non-contiguous, non-synchronous sends between
 * {@link ProtocolThresholds#eagerGetMin} and {@link ProtocolThresholds#eagerGetMax} when the AM lane's
 * transport allocates memory its peers map ({@code ALLOC_SHARED} and {@code RKEY_PTR}: shm). When every
 * slot is in use a send falls back to the eager fragments (no waiting). The pool's key goes to each peer
 * once, ahead of the first header on the same ordered lane.
 *
 * <p>A slot is a page longer than the largest message, and a contiguous message starts in it at its source's
 * offset in its page: the sender's copy then runs at distance 0 modulo 4 KiB, and so does the receiver's when
 * its buffer sits at the same page offset (symmetric allocations, as OSU's and perftest's). Copies of 4 KiB
 * and up at some other distances run 2-3x slower on x86 (4K aliasing between the loads and the stores).
 *
 * <pre>
 *  EAGER_GET_KEY   {@link EagerGetHeader#writeKey}: the pool's key (am bcopy, once per endpoint)
 *  EAGER_GET       {@link EagerGetHeader}, am short, header = tag
 *  EAGER_GET_DONE  {@link ControlMessage}: the slot token; the receiver has read the slot
 * </pre>
 */
final class EagerGet {

    private final Worker worker;
    /** Bytes from one slot to the next: the largest message plus a page (see the class comment). */
    private final long slotSize;
    private final int slots;
    private MemoryMap pool;
    private MemorySegment mem;
    private byte[] packedKey;
    private int[] free;
    private int freeCount;
    private int[] gen;
    private boolean[] busy;
    /** The endpoint each lent slot went to (slots lent to a peer that is gone are taken back: {@link #reclaim}). */
    private Endpoint[] owner;
    private boolean failed;

    private static final long PAGE = 4096;

    EagerGet(final Worker worker, final long slotSize, final long poolSize) {
        this.worker = worker;
        this.slotSize = slotSize + PAGE;
        this.slots = (int) Math.max(1, Math.min(1 << 16, poolSize / this.slotSize));
    }

    /** True if {@code transport}'s memory, allocated here, is mapped by peers of that transport. */
    static boolean mappable(final weft.uct.Transport transport) {
        return transport.memoryDomain().attributes().has(MemoryDomainAttributes.ALLOC
            | MemoryDomainAttributes.ALLOC_SHARED | MemoryDomainAttributes.RKEY_PTR);
    }

    /** The pool, allocated on first use; false if it cannot be (then the protocol stays off). */
    private boolean ready(final Lane am) {
        if (pool != null) {
            return true;
        }
        if (failed) {
            return false;
        }
        try {
            pool = worker.context.memMap((long) slots * slotSize, 0);
        } catch (final WeftException e) {
            failed = true; // no shared allocator (or no memory): the eager fragments serve instead
            return false;
        }
        if (!pool.memoryDomains().contains(am.local.transport.name())) {
            pool.close();
            pool = null;
            failed = true;
            return false;
        }
        mem = pool.segment();
        packedKey = pool.packRkey();
        free = new int[slots];
        gen = new int[slots];
        busy = new boolean[slots];
        owner = new Endpoint[slots];
        for (int i = 0; i < slots; i++) {
            free[i] = slots - 1 - i;
        }
        freeCount = slots;
        return true;
    }

    /**
     * One step of an eager-get send: OK when the header went (the request is done), NO_RESOURCE to retry,
     * UNSUPPORTED when no slot is free or the pool cannot be made (the caller falls back to fragments).
     */
    Status send(final Endpoint ep, final Request r) {
        if (ep.remoteId < 0) {
            return Status.NO_RESOURCE; // the header names the peer's endpoint: wait for wireup
        }
        if (!ready(ep.am)) {
            return Status.UNSUPPORTED;
        }
        if (!ep.eagerGetPeer.keySent) {
            // slow path, once per endpoint (a capturing packer is fine here)
            final long n = ep.amEp.amBcopy(AmId.EAGER_GET_KEY, (d, o, cap) -> packKey(ep, d, o, cap));
            if (n < 0) {
                return Status.ofLength(n);
            }
            ep.eagerGetPeer.keySent = true;
        }
        if (freeCount == 0) {
            return Status.UNSUPPORTED;
        }
        final int slot = free[freeCount - 1];
        final long at = slot * slotSize + (r.dt == Datatypes.CONTIG ? (r.buffer.address() + r.offset) & (PAGE - 1) : 0);
        Datatypes.pack(r, 0, mem, at, r.capacity);
        final MemorySegment h = ep.eagerGetPeer.header(worker);
        final long token = (long) gen[slot] << 32 | slot;
        EagerGetHeader.writePayload(h, ep.remoteId, at, r.capacity, token);
        final Status st = ep.amEp.amShort(AmId.EAGER_GET, r.tag, h, 0, EagerGetHeader.PAYLOAD_LENGTH);
        if (st == Status.OK) {
            freeCount--; // the receiver gives it back with EAGER_GET_DONE
            busy[slot] = true;
            owner[slot] = ep;
        }
        return st;
    }

    private long packKey(final Endpoint ep, final MemorySegment d, final long o, final long cap) {
        if (EagerGetHeader.KEY_HEADER + packedKey.length > cap) {
            throw new WeftException(Status.BUFFER_TOO_SMALL, "eager pool key of " + packedKey.length
                + " bytes does not fit in one message of " + cap);
        }
        return EagerGetHeader.writeKey(d, o, ep.remoteId, packedKey);
    }

    /** Receiver: the sender's pool key (once per endpoint). */
    void register(final weft.uct.Interface i) {
        i.setAmHandler(AmId.EAGER_GET_KEY, this::onKey);
        i.setAmHandler(AmId.EAGER_GET, this::onHeader);
        i.setAmHandler(AmId.EAGER_GET_DONE, this::onDone);
    }

    Status onKey(final MemorySegment data, final long off, final long len, final int flags) {
        if (!EagerGetHeader.keyFits(len)) {
            return worker.control.dropMalformed("EAGER_GET_KEY", len);
        }
        final Endpoint ep = worker.epTable.byId(EagerGetHeader.keyDstEp(data, off));
        if (ep == null || ep.status() != Status.OK) {
            return Status.OK; // (a failed endpoint reads no pool: unpackRkey would refuse it)
        }
        final byte[] key = data.asSlice(off + EagerGetHeader.KEY_HEADER, len - EagerGetHeader.KEY_HEADER)
            .toArray(ValueLayout.JAVA_BYTE);
        try {
            final Rkey rk = ep.unpackRkey(key);
            ep.eagerGetPeer.setView(rk, rk.ptr(rk.base(), rk.length()));
        } catch (final WeftException e) {
            // the headers that follow name a pool we cannot read: they are dropped (and their slots returned)
            System.getLogger("weft.ucp").log(System.Logger.Level.WARNING,
                "eager-get pool of " + ep + " cannot be mapped: " + e.getMessage());
        }
        return Status.OK;
    }

    /** Receiver: a header; the body is read from the sender's pool like an eager message's payload. */
    Status onHeader(final MemorySegment data, final long off, final long len, final int flags) {
        if (!EagerGetHeader.fits(len)) {
            return worker.control.dropMalformed("EAGER_GET", len);
        }
        final long tag = EagerGetHeader.tag(data, off);
        final Endpoint ep = worker.epTable.byId(EagerGetHeader.dstEp(data, off));
        final long at = EagerGetHeader.offset(data, off);
        final long n = EagerGetHeader.length(data, off);
        final long token = EagerGetHeader.token(data, off);
        if (ep == null) {
            return Status.OK; // our endpoint to the sender is gone
        }
        final MemorySegment view = ep.eagerGetPeer.view();
        if (view == null || at < 0 || n < 0 || at > view.byteSize() - n) {
            System.getLogger("weft.ucp").log(System.Logger.Level.WARNING,
                "dropping an eager-get message outside the sender's pool (or without its key)");
        } else {
            worker.tagEager.deliver(tag, view, at, n);
        }
        ep.sendReply(AmId.EAGER_GET_DONE, token, 0);
        return Status.OK;
    }

    /** Sender: a slot was read. */
    Status onDone(final MemorySegment data, final long off, final long len, final int flags) {
        if (!ControlMessage.fits(len)) {
            return worker.control.dropMalformed("EAGER_GET_DONE", len);
        }
        final long token = ControlMessage.id(data, off);
        final int slot = (int) token;
        if (pool == null || slot < 0 || slot >= slots || !busy[slot] || gen[slot] != (int) (token >>> 32)) {
            return Status.OK; // stale or foreign: ignore
        }
        giveBack(slot);
        return Status.OK;
    }

    private void giveBack(final int slot) {
        busy[slot] = false;
        owner[slot] = null;
        gen[slot]++; // a late EAGER_GET_DONE for the old loan is then ignored
        free[freeCount++] = slot;
    }

    /**
     * The slots lent to {@code ep}'s peer, taken back because the peer will never read them: its process is
     * gone, it closed its interface, or it dropped its endpoint (EP_REMOVED); the caller checked which. A
     * peer that is only slow keeps its slots (it may still read them), so a failed endpoint to a live peer
     * does not free memory the peer could read after reuse.
     *
     * @return how many slots came back
     */
    int reclaim(final Endpoint ep) {
        if (pool == null) {
            return 0;
        }
        int n = 0;
        for (int slot = 0; slot < slots; slot++) {
            if (busy[slot] && owner[slot] == ep) {
                giveBack(slot);
                n++;
            }
        }
        return n;
    }

    /** The pool's memory (null until first used): for tests that look at where a message was placed. */
    MemorySegment memory() {
        return mem;
    }

    /** Slots lent now (sent, not yet read by their receiver). */
    int lent() {
        return pool == null ? 0 : slots - freeCount;
    }

    /** Frees the pool (worker close). Peers keep their mapping of the file until they drop it. */
    void close() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
    }

    /** One endpoint's GET-based eager state: our pool's key went to the peer; the peer's pool as we map it. */
    static final class Peer {
        boolean keySent;
        private MemorySegment header;
        private Rkey rkey;
        private MemorySegment view;

        /** The EAGER_GET header buffer of this endpoint (made on first use). */
        MemorySegment header(final Worker worker) {
            if (header == null) {
                header = worker.arena().allocate(EagerGetHeader.PAYLOAD_LENGTH, 8);
            }
            return header;
        }

        MemorySegment view() {
            return view;
        }

        void setView(final Rkey rk, final MemorySegment v) {
            if (rkey != null) {
                rkey.close();
            }
            rkey = rk;
            view = v;
        }

        void close() {
            if (rkey != null) {
                rkey.close();
                rkey = null;
                view = null;
            }
        }
    }
}
