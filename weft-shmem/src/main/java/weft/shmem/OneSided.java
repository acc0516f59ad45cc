package weft.shmem;

import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.AtomicOp;
import weft.uct.MemoryAtomics;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The untyped one-sided operations every typed routine ends in: put, get, strided put/get, atomics, fence
 * and quiet, on symmetric addresses of one PE. The PE itself and same-node PEs whose heap a lane maps are
 * served by loads, stores and CPU atomics on the mapping (coherent with the transports' atomics, which
 * are CPU atomics on the same memory at the target); other PEs through the ucp endpoint and the heap's
 * remote key. Because every PE's heap is at the same address, the remote address is the local one.
 */
final class OneSided {
    static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();
    static final VarHandle I32 = ValueLayout.JAVA_INT.varHandle();

    private final UcpPeers peers;
    private final SymmetricHeap heap;
    private final int me;
    private final int n;
    private final int seg;
    /** World PEs of a team context's team in team order (PE arguments are team numbers), or null (world numbers). */
    private final int[] teamPes;
    /** Requests of nbi operations that need one (fetching atomics into the caller's memory), completed by quiet. */
    private final List<Request> pending = new ArrayList<>();
    /** Set by every operation that went through the transport: quiet and fence have nothing to do otherwise. */
    private volatile boolean transportUsed;
    /**
     * Set by the collectives' own transport operations ({@link #putAt}, {@link #signalAt}), which a user's
     * quiet does not wait for (their receivers wait for their signals; {@link #quietSent} sends them), but a
     * fence still orders. Cleared by a quiet that flushed (everything is complete then).
     */
    private volatile boolean internalUsed;
    private final ThreadLocal<MemorySegment> scratch = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(64, 64));

    OneSided(final UcpPeers peers, final SymmetricHeap heap) {
        this(peers, heap, null);
    }

    /** Operations whose PE arguments number the members of {@code team} (a context of that team), or the world's. */
    OneSided(final UcpPeers peers, final SymmetricHeap heap, final ShmemTeam team) {
        this.peers = peers;
        this.heap = heap;
        this.me = peers.rank();
        this.n = peers.size();
        this.seg = heap.segmentIndex();
        this.teamPes = team == null ? null : team.pes.clone();
    }

    /** The world PE that {@code pe} (a PE number of this object's team) names. */
    int checkPe(final int pe) {
        final int size = teamPes == null ? n : teamPes.length;
        if (pe < 0 || pe >= size) {
            throw new IllegalArgumentException("PE " + pe + " is out of range [0, " + size + ")"
                + (teamPes == null ? "" : " of the context's team"));
        }
        return teamPes == null ? pe : teamPes[pe];
    }

    /** This PE's number in this object's team. */
    int self() {
        if (teamPes == null) {
            return me;
        }
        for (int i = 0; i < teamPes.length; i++) {
            if (teamPes[i] == me) {
                return i;
            }
        }
        throw new IllegalStateException("PE " + me + " is not in the context's team");
    }

    /** The memory through which loads and stores reach {@code pe}'s heap, or null if only the transport does. */
    MemorySegment direct(final int pe) {
        return pe == me ? heap.memory() : peers.mapping(seg, pe);
    }

    private static void checkLocal(final MemorySegment local, final long bytes, final String what) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative length " + bytes);
        }
        if (bytes > local.byteSize()) {
            throw new IllegalArgumentException(what + " has " + local.byteSize() + " bytes, the operation needs " + bytes);
        }
    }

    private static void check(final Status st, final String op, final int pe) {
        if (st.isError()) {
            throw new WeftException(st, op + " to PE " + pe + " failed: " + st);
        }
    }

    private static void await(final Request r) {
        try {
            r.await();
        } finally {
            r.release();
        }
    }

    private Endpoint transport(final int pe) {
        transportUsed = true;
        return peers.endpoint(pe);
    }

    private Endpoint internalTransport(final int pe) {
        internalUsed = true;
        return peers.endpoint(pe);
    }

    // ------------------------------------------------------------------ contiguous RMA

    /** Copies {@code src[0, bytes)} to {@code dest} (symmetric) on {@code pe}; blocking = source reusable. */
    void put(final MemorySegment dest, final MemorySegment src, final long bytes, final int tpe, final boolean nbi) {
        final int pe = checkPe(tpe);
        checkLocal(src, bytes, "the source");
        final long off = heap.offsetOf(dest, bytes, "the destination");
        if (bytes == 0) {
            return;
        }
        final MemorySegment d = direct(pe);
        if (d != null) {
            MemorySegment.copy(src, 0, d, off, bytes);
            return;
        }
        final Endpoint ep = transport(pe);
        final Rkey rk = peers.rkey(seg, pe);
        if (nbi) {
            check(ep.putNbi(src, 0, bytes, dest.address(), rk), "put", pe);
        } else {
            await(ep.put(src, 0, bytes, dest.address(), rk));
        }
    }

    /**
     * Copies {@code src[srcOff, srcOff + bytes)} to heap offset {@code off} of world PE {@code pe}, without
     * blocking: the collectives' puts, whose offsets their callers derived from checked segments (no slice of
     * either side is made). Sent by {@link #quietSent}; performed at the target before a signal that follows
     * a {@link #fence}; not completed by {@link #quiet} (see {@link #internalUsed}).
     */
    void putAt(final long off, final MemorySegment src, final long srcOff, final long bytes, final int pe) {
        if (bytes == 0) {
            return;
        }
        final MemorySegment d = direct(pe);
        if (d != null) {
            MemorySegment.copy(src, srcOff, d, off, bytes);
            return;
        }
        check(internalTransport(pe).putNbi(src, srcOff, bytes, heap.base() + off, peers.rkey(seg, pe)), "put", pe);
    }

    /** A collective's put-with-signal: {@link #putAt}, then {@link #signalAt} on {@code counter}, the data first. */
    void putSignalAt(final long off, final MemorySegment src, final long srcOff, final long bytes, final long counter,
                     final int pe) {
        final MemorySegment d = direct(pe);
        if (d != null) {
            MemorySegment.copy(src, srcOff, d, off, bytes);
            MemoryAtomics.fetch64(AtomicOp.ADD, d, counter, 1); // a full fence: the data is visible first
            return;
        }
        final Rkey rk = peers.rkey(seg, pe);
        check(internalTransport(pe).putSignalNbi(src, srcOff, bytes, heap.base() + off, rk, AtomicOp.ADD, 1,
            heap.base() + counter, rk), "put with signal", pe);
    }

    /**
     * {@code bytes} of {@code src} to {@code dest} (symmetric) on {@code pe}, then the 64-bit post atomic
     * {@code sigOp} (ADD, or SWAP: a set) of {@code signal} on the word {@code sig} there, the data first at the
     * target: one transport operation where the lane fuses them. Blocking = the source is reusable.
     */
    void putSignal(final MemorySegment dest, final MemorySegment src, final long bytes, final MemorySegment sig,
                   final AtomicOp sigOp, final long signal, final int tpe, final boolean nbi) {
        final int pe = checkPe(tpe);
        checkLocal(src, bytes, "the source");
        final long off = heap.offsetOf(dest, bytes, "the destination");
        final long sigOff = amoOffset(sig, 8);
        final MemorySegment d = direct(pe);
        if (d != null) {
            MemorySegment.copy(src, 0, d, off, bytes);
            MemoryAtomics.fetch64(sigOp, d, sigOff, signal);
            return;
        }
        final Endpoint ep = transport(pe);
        final Rkey rk = peers.rkey(seg, pe);
        final Status st = ep.putSignalNbi(src, 0, bytes, dest.address(), rk, sigOp, signal, sig.address(), rk);
        check(st, "put with signal", pe);
        if (!nbi && st == Status.IN_PROGRESS) {
            await(ep.flushSent()); // the source is reusable once it left
        }
    }

    /** A collective's signal: adds 1 to the 64-bit counter at heap offset {@code off} of world PE {@code pe} (as putAt). */
    void signalAt(final long off, final int pe) {
        final MemorySegment d = direct(pe);
        if (d != null) {
            MemoryAtomics.fetch64(AtomicOp.ADD, d, off, 1);
            return;
        }
        final Status st = internalTransport(pe).atomicPost(AtomicOp.ADD, 1, heap.base() + off, peers.rkey(seg, pe));
        if (st.isError()) {
            throw new WeftException(st, "signal to PE " + pe + " failed: " + st);
        }
    }

    /**
     * The 64-bit word at heap offset {@code off} of world PE {@code pe} now (a collective's credit check): a
     * load through the mapping, else a fetching atomic (a round trip, tracked as the collectives' own).
     */
    long loadAt(final long off, final int pe) {
        final MemorySegment d = direct(pe);
        if (d != null) {
            return (long) I64.getAcquire(d, off);
        }
        final MemorySegment s = scratch.get();
        await(internalTransport(pe).atomicFetch(AtomicOp.ADD, 0, s, 0, heap.base() + off, peers.rkey(seg, pe)));
        return s.get(ValueLayout.JAVA_LONG, 0);
    }

    /** Copies {@code src} (symmetric) of {@code pe} into {@code dest[0, bytes)}; blocking = data arrived. */
    void get(final MemorySegment dest, final MemorySegment src, final long bytes, final int tpe, final boolean nbi) {
        final int pe = checkPe(tpe);
        checkLocal(dest, bytes, "the destination");
        final long off = heap.offsetOf(src, bytes, "the source");
        if (bytes == 0) {
            return;
        }
        final MemorySegment d = direct(pe);
        if (d != null) {
            MemorySegment.copy(d, off, dest, 0, bytes);
            return;
        }
        final Endpoint ep = transport(pe);
        final Rkey rk = peers.rkey(seg, pe);
        if (nbi) {
            check(ep.getNbi(dest, 0, bytes, src.address(), rk), "get", pe);
        } else {
            await(ep.get(dest, 0, bytes, src.address(), rk));
        }
    }

    // ------------------------------------------------------------------ strided RMA

    /**
     * Element {@code i*sst} of {@code src} to element {@code i*dst} of {@code dest} on {@code pe}, for
     * {@code i < nelems}, elements of {@code size} bytes; strides in elements, at least 1.
     */
    void iput(final MemorySegment dest, final MemorySegment src, final long dst, final long sst, final long nelems,
              final int size, final int pe) {
        strided(true, dest, src, dst, sst, 1, nelems, size, pe);
    }

    /** Element {@code i*sst} of {@code src} on {@code pe} to element {@code i*dst} of {@code dest}. */
    void iget(final MemorySegment dest, final MemorySegment src, final long dst, final long sst, final long nelems,
              final int size, final int pe) {
        strided(false, dest, src, dst, sst, 1, nelems, size, pe);
    }

    /**
     * The blocked strided put (1.6 {@code ibput}): {@code nblocks} blocks of {@code bsize} elements, block i
     * from element {@code i*sst} of {@code src} to element {@code i*dst} of {@code dest} on {@code pe}.
     */
    void ibput(final MemorySegment dest, final MemorySegment src, final long dst, final long sst, final long bsize,
               final long nblocks, final int size, final int pe) {
        strided(true, dest, src, dst, sst, bsize, nblocks, size, pe);
    }

    /** The blocked strided get (1.6 {@code ibget}). */
    void ibget(final MemorySegment dest, final MemorySegment src, final long dst, final long sst, final long bsize,
               final long nblocks, final int size, final int pe) {
        strided(false, dest, src, dst, sst, bsize, nblocks, size, pe);
    }

    /**
     * ibput/iput ({@code put}: {@code dest} symmetric) or ibget/iget ({@code src} symmetric): {@code nelems}
     * blocks of {@code bsize} elements; blocking either way.
     */
    private void strided(final boolean put, final MemorySegment dest, final MemorySegment src, final long dst,
                         final long sst, final long bsize, final long nelems, final int size, final int tpe) {
        final int pe = checkPe(tpe);
        checkStrides(dst, sst, nelems);
        if (bsize < 1) {
            throw new IllegalArgumentException("the block size must be >= 1, got " + bsize);
        }
        if (nelems == 0) {
            return;
        }
        final MemorySegment remote = put ? dest : src;
        final MemorySegment local = put ? src : dest;
        final long rs = put ? dst : sst;
        final long ls = put ? sst : dst;
        final long piece = Math.multiplyExact(bsize, size);
        checkLocal(local, ((nelems - 1) * ls + bsize) * size, put ? "the source" : "the destination");
        final long off = heap.offsetOf(remote, ((nelems - 1) * rs + bsize) * size, put ? "the destination" : "the source");
        final MemorySegment d = direct(pe);
        if (d != null) {
            for (long i = 0; i < nelems; i++) {
                if (put) {
                    MemorySegment.copy(local, i * ls * size, d, off + i * rs * size, piece);
                } else {
                    MemorySegment.copy(d, off + i * rs * size, local, i * ls * size, piece);
                }
            }
            return;
        }
        final Endpoint ep = transport(pe);
        final Rkey rk = peers.rkey(seg, pe);
        for (long i = 0; i < nelems; i++) {
            final MemorySegment part = local.asSlice(i * ls * size, piece);
            final long raddr = remote.address() + i * rs * size;
            check(put ? ep.putNbi(part, 0, piece, raddr, rk) : ep.getNbi(part, 0, piece, raddr, rk),
                put ? "iput" : "iget", pe);
        }
        await(ep.flush()); // the source is reusable, or the data arrived
    }

    private static void checkStrides(final long dst, final long sst, final long nelems) {
        if (dst < 1 || sst < 1 || nelems < 0) {
            throw new IllegalArgumentException("strides must be >= 1 and the count >= 0 (dst " + dst + ", sst " + sst
                + ", nelems " + nelems + ")");
        }
    }

    // ------------------------------------------------------------------ single values

    /** Stores the low {@code size} bytes of {@code value} at {@code dest} on {@code pe}. */
    void p(final MemorySegment dest, final long value, final int size, final int pe) {
        final MemorySegment d = checkPe(pe) == me ? heap.memory() : null;
        if (d != null) {
            store(d, heap.offsetOf(dest, size, "the destination"), value, size);
            return;
        }
        final MemorySegment s = scratch.get();
        store(s, 0, value, size);
        put(dest, s, size, pe, false);
    }

    /** Loads {@code size} bytes at {@code src} on {@code pe} (sign-extended). */
    long g(final MemorySegment src, final int size, final int pe) {
        if (checkPe(pe) == me) {
            return load(heap.memory(), heap.offsetOf(src, size, "the source"), size);
        }
        final MemorySegment s = scratch.get();
        get(s, src, size, pe, false);
        return load(s, 0, size);
    }

    private static void store(final MemorySegment m, final long off, final long v, final int size) {
        switch (size) {
            case 1 -> m.set(ValueLayout.JAVA_BYTE, off, (byte) v);
            case 2 -> m.set(ValueLayout.JAVA_SHORT_UNALIGNED, off, (short) v);
            case 4 -> m.set(ValueLayout.JAVA_INT_UNALIGNED, off, (int) v);
            default -> m.set(ValueLayout.JAVA_LONG_UNALIGNED, off, v);
        }
    }

    private static long load(final MemorySegment m, final long off, final int size) {
        return switch (size) {
            case 1 -> m.get(ValueLayout.JAVA_BYTE, off);
            case 2 -> m.get(ValueLayout.JAVA_SHORT_UNALIGNED, off);
            case 4 -> m.get(ValueLayout.JAVA_INT_UNALIGNED, off);
            default -> m.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
        };
    }

    // ------------------------------------------------------------------ atomics

    private long amoOffset(final MemorySegment dest, final int size) {
        final long off = heap.offsetOf(dest, size, "the atomic's target");
        if ((dest.address() & (size - 1)) != 0) {
            throw new IllegalArgumentException("the atomic's target 0x" + Long.toHexString(dest.address())
                + " is not aligned to " + size + " bytes");
        }
        return off;
    }

    /**
     * A 64-bit ({@code size} 8) or 32-bit atomic {@code op} (ADD, AND, OR, XOR, SWAP) of {@code value} on
     * {@code dest} at {@code pe}; returns the old value when {@code fetch}, else 0 (the update is then done
     * by the next quiet at the latest).
     */
    long amo(final AtomicOp op, final MemorySegment dest, final long value, final int size, final int tpe,
             final boolean fetch) {
        final int pe = checkPe(tpe);
        return amoAt(op, amoOffset(dest, size), value, size, pe, fetch);
    }

    /** {@link #amo} on the heap offset {@code off} (checked by the caller; the collectives' signals). */
    long amoAt(final AtomicOp op, final long off, final long value, final int size, final int pe,
               final boolean fetch) {
        final MemorySegment d = direct(pe);
        if (d != null) {
            return size == 8 ? MemoryAtomics.fetch64(op, d, off, value) : MemoryAtomics.fetch32(op, d, off, (int) value);
        }
        final Endpoint ep = transport(pe);
        final Rkey rk = peers.rkey(seg, pe);
        final long raddr = heap.base() + off;
        if (!fetch) { // SWAP too: a posted set
            final Status st = size == 8 ? ep.atomicPost(op, value, raddr, rk) : ep.atomicPost32(op, (int) value, raddr, rk);
            if (st.isError()) {
                throw new WeftException(st, "atomic " + op + " to PE " + pe + " failed: " + st);
            }
            return 0;
        }
        final MemorySegment s = scratch.get();
        await(size == 8 ? ep.atomicFetch(op, value, s, 0, raddr, rk) : ep.atomicFetch32(op, (int) value, s, 0, raddr, rk));
        return size == 8 ? s.get(ValueLayout.JAVA_LONG, 0) : s.get(ValueLayout.JAVA_INT, 0);
    }

    /** Compare-and-swap: writes {@code value} if the target equals {@code cond}; returns the old value. */
    long cswap(final MemorySegment dest, final long cond, final long value, final int size, final int tpe) {
        final int pe = checkPe(tpe);
        final long off = amoOffset(dest, size);
        final MemorySegment d = direct(pe);
        if (d != null) {
            return size == 8 ? MemoryAtomics.cswap64(d, off, cond, value)
                : MemoryAtomics.cswap32(d, off, (int) cond, (int) value);
        }
        final Endpoint ep = transport(pe);
        final Rkey rk = peers.rkey(seg, pe);
        final MemorySegment s = scratch.get();
        await(size == 8 ? ep.atomicCswap(cond, value, s, 0, dest.address(), rk)
            : ep.atomicCswap32((int) cond, (int) value, s, 0, dest.address(), rk));
        return size == 8 ? s.get(ValueLayout.JAVA_LONG, 0) : s.get(ValueLayout.JAVA_INT, 0);
    }

    /** {@link #cswap} whose old value lands in {@code result}; done at once (a permitted early completion). */
    void cswapNbi(final MemorySegment result, final MemorySegment dest, final long cond, final long value,
                  final int size, final int pe) {
        checkLocal(result, size, "the fetch result");
        store(result, 0, cswap(dest, cond, value, size, pe), size);
    }

    /** The atomic read of the target (a fetch-add of 0 where it is remote). */
    long fetch(final MemorySegment src, final int size, final int pe) {
        final long off = amoOffset(src, size);
        final MemorySegment d = direct(checkPe(pe));
        if (d != null) {
            return size == 8 ? (long) I64.getVolatile(d, off) : (int) I32.getVolatile(d, off);
        }
        return amo(AtomicOp.ADD, src, 0, size, pe, true);
    }

    /**
     * A fetching atomic whose old value lands in {@code result} (native memory) by the next quiet; done at
     * once where the target is mapped or {@code result} is Java heap memory.
     */
    void amoNbi(final AtomicOp op, final MemorySegment result, final MemorySegment dest, final long value,
                final int size, final int tpe) {
        final int pe = checkPe(tpe);
        checkLocal(result, size, "the fetch result");
        final long off = amoOffset(dest, size);
        final MemorySegment d = direct(pe);
        if (d != null || !result.isNative()) {
            final long old = d != null
                ? (size == 8 ? MemoryAtomics.fetch64(op, d, off, value) : MemoryAtomics.fetch32(op, d, off, (int) value))
                : amo(op, dest, value, size, tpe, true);
            store(result, 0, old, size);
            return;
        }
        final Endpoint ep = transport(pe);
        final Rkey rk = peers.rkey(seg, pe);
        final Request r = size == 8 ? ep.atomicFetch(op, value, result, 0, dest.address(), rk)
            : ep.atomicFetch32(op, (int) value, result, 0, dest.address(), rk);
        synchronized (pending) {
            pending.add(r);
        }
    }

    // ------------------------------------------------------------------ ordering

    /** Operations to each PE issued after the fence are performed after those issued before it. */
    void fence() {
        VarHandle.fullFence();
        if (transportUsed || internalUsed) {
            peers.fence();
        }
    }

    /** Every operation issued so far is complete: puts and atomics performed at their targets, gets arrived. */
    void quiet() {
        VarHandle.fullFence();
        if (!transportUsed) {
            return; // loads and stores through mappings are complete when they return
        }
        transportUsed = false;
        internalUsed = false;
        peers.flush();
        final Request[] reqs;
        synchronized (pending) {
            if (pending.isEmpty()) {
                return;
            }
            reqs = pending.toArray(Request[]::new);
            pending.clear();
        }
        RuntimeException first = null;
        for (final Request r : reqs) {
            try {
                await(r);
            } catch (final RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Local completion, the end of every collective: every operation issued so far (the collectives' own
     * included) has left this PE, so its source may be reused and its delivery needs no further progress
     * here; nothing is implied at the targets (their signals tell them). Free on shared memory.
     */
    void quietSent() {
        VarHandle.fullFence();
        if (!internalUsed && !transportUsed) {
            return;
        }
        peers.flushSent();
    }

    /** {@link #quiet} of the collectives' operations too: nothing this PE started is still on its way. */
    void quietAll() {
        if (internalUsed) {
            internalUsed = false;
            transportUsed = true;
        }
        quiet();
    }

    /** Completes every operation to {@code pe}. */
    void peQuiet(final int tpe) {
        final int pe = checkPe(tpe);
        VarHandle.fullFence();
        if (pe != me && peers.mapping(seg, pe) == null) {
            await(peers.endpoint(pe).flush());
        }
    }

    /** One round of the worker's progress (serves transport operations targeting this PE). */
    int progress() {
        return peers.progress();
    }

    /** Sleeps until transport traffic arrives for this PE, at most 1 ms. */
    void sleep() {
        peers.worker().waitForEvents(1);
    }

    int rank() {
        return me;
    }

    int size() {
        return n;
    }

    SymmetricHeap heap() {
        return heap;
    }
}
