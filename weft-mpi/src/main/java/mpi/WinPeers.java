package mpi;

import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.MemoryMap;
import weft.ucp.Rkey;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The memory side of a window: this rank's window memory and its control words registered with the ucp
 * context, every rank's keys, base address, size and displacement unit (swapped by an allgather when the
 * window is made), and the remote operations on them: contiguous put and get, and the 64-bit atomics the
 * locks are made of. A rank's keys are unpacked the first time it is addressed.
 *
 * <p>Each rank's control region holds two words: the window lock (0 free, n &gt; 0 shared holders, a large
 * negative value while held exclusively) and the accumulate mutex (0 or 1), which every accumulate-family
 * operation on that rank takes, so they are atomic with respect to each other.
 */
final class WinPeers {
    /** The lock word's value while held exclusively (adding shared holders keeps it negative). */
    static final long EXCLUSIVE = Long.MIN_VALUE / 2;
    static final long LOCK_WORD = 0;
    static final long ACC_MUTEX = 8;
    private static final int RECORD = 8 * 5;

    private final Comm comm;
    private final MemoryMap data;
    private final MemoryMap control;
    private final byte[][] dataKeys;
    private final byte[][] controlKeys;
    private final long[] bases;
    private final long[] sizes;
    private final int[] dispUnits;
    private final long[] controlBases;
    private final Rkey[] dataRkeys;
    private final Rkey[] controlRkeys;
    private final MemorySegment scratch = java.lang.foreign.Arena.ofAuto().allocate(8, 8);

    private WinPeers(final Comm comm, final MemoryMap data, final MemoryMap control, final int n) {
        this.comm = comm;
        this.data = data;
        this.control = control;
        this.dataKeys = new byte[n][];
        this.controlKeys = new byte[n][];
        this.bases = new long[n];
        this.sizes = new long[n];
        this.dispUnits = new int[n];
        this.controlBases = new long[n];
        this.dataRkeys = new Rkey[n];
        this.controlRkeys = new Rkey[n];
    }

    /** Registers {@code memory} and swaps keys with every rank of {@code comm} (collective). */
    static WinPeers create(final Comm comm, final MemorySegment memory, final int dispUnit) throws MPIException {
        final Context ctx = comm.session.job.context();
        final MemoryMap data = memory.byteSize() == 0 ? null : ctx.memMap(memory, 0);
        final MemoryMap control = ctx.memMap(16, MemoryMap.ALLOCATE);
        control.segment().fill((byte) 0);
        final WinPeers p = new WinPeers(comm, data, control, comm.size);
        try {
            p.exchange(memory, dispUnit);
        } catch (final MPIException | RuntimeException e) {
            p.close();
            throw e;
        }
        return p;
    }

    private void exchange(final MemorySegment memory, final int dispUnit) throws MPIException {
        final byte[] dk = data == null ? new byte[0] : data.packRkey();
        final byte[] ck = control.packRkey();
        final ByteBuffer mine = ByteBuffer.allocate(RECORD + dk.length + ck.length).order(ByteOrder.nativeOrder());
        mine.putLong(data == null ? 0 : data.address()).putLong(memory.byteSize()).putLong(dispUnit)
            .putLong(control.address()).putInt(dk.length).putInt(ck.length).put(dk).put(ck);
        final int n = comm.size;
        final int[] lengths = new int[n];
        Collectives.allgatherv(comm, Span.of(new int[] {mine.capacity()}), 1, MPI.INT, Span.of(lengths),
            Collectives.blocks(n, 1)[0], Collectives.blocks(n, 1)[1], MPI.INT).run();
        final int[] displs = new int[n];
        int total = 0;
        for (int r = 0; r < n; r++) {
            displs[r] = total;
            total += lengths[r];
        }
        final byte[] all = new byte[total];
        Collectives.allgatherv(comm, Span.of(mine.array()), mine.capacity(), MPI.BYTE, Span.of(all), lengths, displs,
            MPI.BYTE).run();
        for (int r = 0; r < n; r++) {
            final ByteBuffer b = ByteBuffer.wrap(all, displs[r], lengths[r]).order(ByteOrder.nativeOrder());
            bases[r] = b.getLong();
            sizes[r] = b.getLong();
            dispUnits[r] = (int) b.getLong();
            controlBases[r] = b.getLong();
            dataKeys[r] = new byte[b.getInt()];
            controlKeys[r] = new byte[b.getInt()];
            b.get(dataKeys[r]).get(controlKeys[r]);
        }
    }

    long size(final int rank) {
        return sizes[rank];
    }

    int dispUnit(final int rank) {
        return dispUnits[rank];
    }

    private Endpoint ep(final int rank) {
        return comm.endpoint(rank);
    }

    /** The address of {@code rank}'s window memory (for a dynamic window: its table of attached regions). */
    long base(final int rank) {
        return bases[rank];
    }

    Endpoint endpoint(final int rank) {
        return ep(rank);
    }

    Rkey dataKey(final int rank) throws MPIException {
        if (dataKeys[rank].length == 0) {
            throw new MPIException(MPI.ERR_RMA_CONFLICT, "rank " + rank + " exposes no memory in this window");
        }
        if (dataRkeys[rank] == null) {
            dataRkeys[rank] = ep(rank).unpackRkey(dataKeys[rank]);
        }
        return dataRkeys[rank];
    }

    private Rkey controlKey(final int rank) {
        if (controlRkeys[rank] == null) {
            controlRkeys[rank] = ep(rank).unpackRkey(controlKeys[rank]);
        }
        return controlRkeys[rank];
    }

    /** Reads {@code len} bytes at byte {@code offset} of {@code rank}'s window into {@code dst}. */
    void get(final int rank, final MemorySegment dst, final long dstOff, final long len, final long offset)
        throws MPIException {
        get(rank, dst, dstOff, len, bases[rank] + offset, dataKey(rank), null);
    }

    /**
     * Writes {@code len} bytes of {@code src} at {@code address} of {@code rank}, reached with {@code key}: waits
     * until {@code src} may be reused, or with {@code pending} only starts the put and adds it there.
     */
    void put(final int rank, final MemorySegment src, final long srcOff, final long len, final long address,
             final Rkey key, final WinRequest pending) throws MPIException {
        final weft.ucp.Request r = ep(rank).put(src, srcOff, len, address, key);
        if (pending != null) {
            pending.add(r);
        } else {
            await(r, "put");
        }
    }

    /**
     * Reads {@code len} bytes at {@code address} of {@code rank}, reached with {@code key}, into {@code dst}: waits
     * for them, or with {@code pending} only starts the get and adds it there.
     */
    void get(final int rank, final MemorySegment dst, final long dstOff, final long len, final long address,
             final Rkey key, final WinRequest pending) throws MPIException {
        final weft.ucp.Request r = ep(rank).get(dst, dstOff, len, address, key);
        if (pending != null) {
            pending.add(r);
        } else {
            await(r, "get");
        }
    }

    /** Atomically adds {@code value} to a control word of {@code rank}; returns the old value. */
    long fetchAdd(final int rank, final long word, final long value) throws MPIException {
        await(startFetchAdd(rank, word, value, scratch), "atomic add");
        return scratch.get(ValueLayout.JAVA_LONG, 0);
    }

    /** Atomically sets a control word of {@code rank} to {@code swap} if it is {@code compare}; the old value. */
    long compareSwap(final int rank, final long word, final long compare, final long swap) throws MPIException {
        await(startCompareSwap(rank, word, compare, swap, scratch), "atomic compare-and-swap");
        return scratch.get(ValueLayout.JAVA_LONG, 0);
    }

    /** Starts {@link #fetchAdd}: the old value lands in {@code old}. */
    weft.ucp.Request startFetchAdd(final int rank, final long word, final long value, final MemorySegment old) {
        return ep(rank).atomicFetch(AtomicOp.ADD, value, old, 0, controlBases[rank] + word, controlKey(rank));
    }

    /** Starts {@link #compareSwap}: the old value lands in {@code old}. */
    weft.ucp.Request startCompareSwap(final int rank, final long word, final long compare, final long swap,
                                      final MemorySegment old) {
        return ep(rank).atomicCswap(compare, swap, old, 0, controlBases[rank] + word, controlKey(rank));
    }

    /** Remote completion of everything issued to {@code rank} (or to every rank when {@code rank} is -1). */
    void flush(final int rank) throws MPIException {
        await(rank < 0 ? comm.session.worker.flush() : startFlush(rank), "flush");
    }

    /** Starts remote completion of everything issued to {@code rank}. */
    weft.ucp.Request startFlush(final int rank) {
        return ep(rank).flush();
    }

    private static void await(final weft.ucp.Request r, final String what) throws MPIException {
        final Status st = r.awaitStatus();
        r.release();
        if (st.isError()) {
            throw new MPIException(errorClass(st), "window " + what + " failed: " + st);
        }
    }

    /** The MPI error class of a failed remote operation: a target range refused is ERR_DISP. */
    static int errorClass(final Status st) {
        return st == Status.OUT_OF_RANGE ? MPI.ERR_DISP : MPI.ERR_OTHER;
    }

    /** Releases the keys and the registrations. */
    void close() {
        for (int r = 0; r < dataRkeys.length; r++) {
            if (dataRkeys[r] != null) {
                dataRkeys[r].close();
            }
            if (controlRkeys[r] != null) {
                controlRkeys[r].close();
            }
        }
        try {
            if (data != null) {
                data.close();
            }
        } catch (final WeftException e) {
            control.close();
            throw e;
        }
        control.close();
    }
}
