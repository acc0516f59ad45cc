package mpi;

import weft.ucp.Context;
import weft.ucp.MemoryMap;
import weft.ucp.Rkey;
import weft.ucs.WeftException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory of a dynamic window (MPI_Win_create_dynamic): regions each rank attaches and detaches on its
 * own, addressed by origins with absolute addresses ({@link MPI#getAddress}). Each attached region is
 * registered with the ucp context; its address, length and packed key go into this rank's <em>region
 * table</em>, native memory the window exposes as its data memory. An origin that addresses memory of a
 * rank it has no key for reads that rank's table with RMA gets (so the target takes no part, as for every
 * one-sided operation) and unpacks the key of the region that holds the address; keys are cached per target
 * and region until the origin's next synchronization call ({@link #drop}), after which a detached region is
 * never reached with a stale key.
 *
 * <p>Table layout (native order): {@code u64 seq, u64 used}, then {@code used} bytes of entries
 * {@code u64 address, u64 length, u32 keyLength, u32 0, key padded to 8 bytes}. The owner rewrites it under a
 * sequence lock (seq odd while it writes); a reader retries until it read the same even seq before and after.
 */
final class WinRegions {
    /** Bytes of a region table: room for dozens of regions (a packed key is some tens of bytes). */
    static final int TABLE = 16 * 1024;
    private static final long HEADER = 16;
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private record Local(long address, long length, MemoryMap map, byte[] key) {
    }

    private record Remote(long address, long length, Rkey key) {
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment table = arena.allocate(TABLE, 8);
    private final List<Local> attached = new ArrayList<>();
    private final List<List<Remote>> cache = new ArrayList<>();

    WinRegions(final int ranks) {
        table.fill((byte) 0);
        for (int r = 0; r < ranks; r++) {
            cache.add(new ArrayList<>());
        }
    }

    /** The table, exposed as the window's data memory. */
    MemorySegment table() {
        return table;
    }

    // ------------------------------------------------------------------ this rank's regions

    /** Registers {@code memory} and publishes it; a region overlapping an attached one is refused. */
    void attach(final Context ctx, final MemorySegment memory) throws MPIException {
        final long at = memory.address();
        final long len = memory.byteSize();
        if (len == 0) {
            throw new MPIException(MPI.ERR_SIZE, "attach of an empty region");
        }
        for (final Local l : attached) {
            if (at < l.address + l.length && l.address < at + len) {
                throw new MPIException(MPI.ERR_RMA_ATTACH, "region [0x" + Long.toHexString(at) + ", +" + len
                    + ") overlaps an attached one");
            }
        }
        final MemoryMap map;
        try {
            map = ctx.memMap(memory, 0);
        } catch (final WeftException e) {
            throw new MPIException(MPI.ERR_RMA_ATTACH, "cannot register the region: " + e.getMessage(), e);
        }
        attached.add(new Local(at, len, map, map.packRkey()));
        try {
            publish();
        } catch (final MPIException e) {
            attached.removeLast().map.close();
            throw e;
        }
    }

    /** Unpublishes and deregisters the region attached at {@code address}. */
    void detach(final long address) throws MPIException {
        for (int i = 0; i < attached.size(); i++) {
            if (attached.get(i).address == address) {
                final Local l = attached.remove(i);
                publish();
                l.map.close();
                return;
            }
        }
        throw new MPIException(MPI.ERR_RMA_RANGE, "no region is attached at 0x" + Long.toHexString(address));
    }

    private void publish() throws MPIException {
        long need = HEADER;
        for (final Local l : attached) {
            need += 24 + pad(l.key.length);
        }
        if (need > TABLE) {
            throw new MPIException(MPI.ERR_RMA_ATTACH, "too many regions attached to a dynamic window (" + attached.size()
                + "): the region table holds " + TABLE + " B");
        }
        final long seq = (long) WORD.getVolatile(table, 0L);
        WORD.setVolatile(table, 0L, seq + 1); // odd: being written
        long at = HEADER;
        for (final Local l : attached) {
            table.set(ValueLayout.JAVA_LONG, at, l.address);
            table.set(ValueLayout.JAVA_LONG, at + 8, l.length);
            table.set(ValueLayout.JAVA_INT, at + 16, l.key.length);
            MemorySegment.copy(MemorySegment.ofArray(l.key), 0, table, at + 24, l.key.length);
            at += 24 + pad(l.key.length);
        }
        WORD.setVolatile(table, 8L, at - HEADER);
        WORD.setVolatile(table, 0L, seq + 2);
    }

    private static long pad(final int n) {
        return (n + 7) & ~7L;
    }

    // ------------------------------------------------------------------ other ranks' regions

    /**
     * The key of {@code rank}'s region that holds bytes {@code [first, end)}: from the cache, else read from
     * the rank's table. ERR_RMA_RANGE when no attached region holds them.
     */
    Rkey key(final WinPeers peers, final int rank, final long first, final long end, final Runnable backOff)
        throws MPIException {
        final Remote hit = find(cache.get(rank), first, end);
        if (hit != null) {
            return hit.key;
        }
        final MemorySegment copy = readTable(peers, rank, backOff);
        for (long at = 0; at < copy.byteSize(); ) {
            final long address = copy.get(ValueLayout.JAVA_LONG, at);
            final long length = copy.get(ValueLayout.JAVA_LONG, at + 8);
            final int keyLength = copy.get(ValueLayout.JAVA_INT, at + 16);
            if (first >= address && end <= address + length) {
                final byte[] packed = copy.asSlice(at + 24, keyLength).toArray(ValueLayout.JAVA_BYTE);
                final Remote r = new Remote(address, length, peers.endpoint(rank).unpackRkey(packed));
                cache.get(rank).add(r);
                return r.key;
            }
            at += 24 + pad(keyLength);
        }
        throw new MPIException(MPI.ERR_RMA_RANGE, "bytes [0x" + Long.toHexString(first) + ", 0x" + Long.toHexString(end)
            + ") are in no region attached to rank " + rank + "'s dynamic window");
    }

    private static Remote find(final List<Remote> regions, final long first, final long end) {
        for (final Remote r : regions) {
            if (first >= r.address && end <= r.address + r.length) {
                return r;
            }
        }
        return null;
    }

    /** A consistent copy of {@code rank}'s entries (the sequence word equal and even around the read). */
    private static MemorySegment readTable(final WinPeers peers, final int rank, final Runnable backOff)
        throws MPIException {
        final MemorySegment header = Arena.ofAuto().allocate(HEADER, 8);
        final MemorySegment seqAfter = Arena.ofAuto().allocate(8, 8);
        while (true) {
            peers.get(rank, header, 0, HEADER, 0);
            final long seq = header.get(ValueLayout.JAVA_LONG, 0);
            final long used = header.get(ValueLayout.JAVA_LONG, 8);
            if ((seq & 1) == 0 && used >= 0 && used <= TABLE - HEADER) {
                final MemorySegment entries = Arena.ofAuto().allocate(Math.max(used, 1), 8).asSlice(0, used);
                if (used > 0) {
                    peers.get(rank, entries, 0, used, HEADER);
                }
                peers.get(rank, seqAfter, 0, 8, 0);
                if (seqAfter.get(ValueLayout.JAVA_LONG, 0) == seq) {
                    return entries;
                }
            }
            backOff.run();
        }
    }

    /** Forgets every cached key (at each synchronization call: the targets may have detached since). */
    void drop() {
        for (final List<Remote> regions : cache) {
            for (final Remote r : regions) {
                r.key.close();
            }
            regions.clear();
        }
    }

    /** Drops the cache, deregisters what is still attached and frees the table. */
    void close() {
        drop();
        for (final Local l : attached) {
            l.map.close();
        }
        attached.clear();
        arena.close();
    }
}
