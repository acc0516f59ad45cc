package weft.shmem;

import java.lang.foreign.MemorySegment;

/**
 * The collective memory-management calls: each PE runs the deterministic {@link HeapAllocator} locally, and
 * the PEs then compare what they did (call number, operation, arguments) in one exchange over the world
 * (the minimum and maximum of each, by dissemination: log2 n peers per PE), which is also the call's
 * barrier. A PE whose call differs from another's (a mismatched collective sequence) makes every PE undo
 * its step and throw, so the heaps never drift apart silently.
 */
final class Allocations {
    private static final Reduction.Op MIN = Reduction.Op.MIN;
    private static final Reduction.Op MAX = Reduction.Op.MAX;
    private static final int MALLOC = 1;
    private static final int CALLOC = 2;
    private static final int ALIGN = 3;
    private static final int REALLOC = 4;
    private static final int FREE = 5;
    private static final int HINTS = 6;
    private static final String[] NAMES = {"?", "malloc", "calloc", "align", "realloc", "free", "mallocWithHints"};
    /** What a pointer that is not the start of a live block counts as in the agreement. */
    private static final long BAD_POINTER = -2;

    private final OneSided ops;
    private final Collectives coll;
    private final ShmemTeam world;
    private final SymmetricHeap heap;
    private final HeapAllocator alloc;
    private long calls;

    Allocations(final OneSided ops, final Collectives coll, final ShmemTeam world) {
        this.ops = ops;
        this.coll = coll;
        this.world = world;
        this.heap = ops.heap();
        this.alloc = heap.allocator();
    }

    private static int code(final String op) {
        return switch (op) {
            case "malloc" -> MALLOC;
            case "calloc" -> CALLOC;
            case "align" -> ALIGN;
            case "realloc" -> REALLOC;
            case "mallocWithHints" -> HINTS;
            default -> throw new IllegalArgumentException(op);
        };
    }

    MemorySegment allocate(final String op, final long size, final long alignment, final boolean zero) {
        if (size < 0) {
            throw new IllegalArgumentException(op + ": negative size " + size);
        }
        final long off = size == 0 ? -1 : alloc.allocate(size, alignment);
        if (zero && off >= 0) {
            heap.slice(off, size).fill((byte) 0);
        }
        try {
            agree(code(op), size, alignment);
        } catch (final IllegalStateException e) {
            if (off >= 0) {
                alloc.free(off);
            }
            throw e;
        }
        return off < 0 ? null : heap.slice(off, size);
    }

    /** The block offset of {@code ptr}, or {@link #BAD_POINTER} when it does not start a live block. */
    private long blockOf(final MemorySegment ptr) {
        if (!ptr.isNative()) {
            return BAD_POINTER;
        }
        final long off = ptr.address() - heap.base();
        if (off < 0 || off >= heap.size()) {
            return BAD_POINTER;
        }
        try {
            alloc.lengthOf(off);
            return off;
        } catch (final IllegalArgumentException e) {
            return BAD_POINTER;
        }
    }

    private static IllegalArgumentException badPointer(final String op, final MemorySegment ptr) {
        return new IllegalArgumentException(op + ": 0x" + Long.toHexString(ptr.address()) + " is not the start of a"
            + " live symmetric allocation (freed already, or not from malloc/calloc/align/realloc)");
    }

    void free(final MemorySegment ptr) {
        final long off = ptr == null ? -1 : blockOf(ptr);
        ops.quiet();
        agree(FREE, off, 0);
        if (off == BAD_POINTER) {
            throw badPointer("free", ptr);
        }
        if (off >= 0) {
            alloc.free(off);
        }
    }

    MemorySegment realloc(final MemorySegment ptr, final long size) {
        if (size < 0) {
            throw new IllegalArgumentException("realloc: negative size " + size);
        }
        if (ptr == null) {
            return allocate("realloc", size, 0, false);
        }
        final long off = blockOf(ptr);
        coll.quietBarrier(world); // nobody still writes the old block while it is copied
        if (off == BAD_POINTER || size == 0) {
            agree(REALLOC, off, size);
            if (off == BAD_POINTER) {
                throw badPointer("realloc", ptr);
            }
            alloc.free(off);
            return null;
        }
        final long oldLen = alloc.lengthOf(off);
        final boolean inPlace = alloc.resizeInPlace(off, size);
        final long to = inPlace ? off : alloc.allocate(size, 0);
        if (!inPlace && to >= 0) {
            MemorySegment.copy(heap.memory(), off, heap.memory(), to, Math.min(oldLen, size));
        }
        try {
            agree(REALLOC, off, size);
        } catch (final IllegalStateException e) {
            if (inPlace) {
                alloc.resizeInPlace(off, oldLen);
            } else if (to >= 0) {
                alloc.free(to);
            }
            throw e;
        }
        if (to < 0) {
            return null;
        }
        if (!inPlace) {
            alloc.free(off);
        }
        return heap.slice(to, size);
    }

    /**
     * The exchange: the minimum and maximum over the PEs of (call number, operation, arguments). Throws on
     * every PE when they differ.
     */
    private void agree(final int op, final long a, final long b) {
        final long call = ++calls;
        final long[] mine = {call << 8 | op, a, b};
        final long[] r = coll.allReduceIdempotent(world, new long[] {mine[0], mine[1], mine[2], mine[0], mine[1], mine[2]},
            new Reduction.Op[] {MIN, MIN, MIN, MAX, MAX, MAX});
        if (r[0] != r[3] || r[1] != r[4] || r[2] != r[5]) {
            throw new IllegalStateException("mismatched collective memory call: PE " + ops.rank() + " made "
                + describe(mine[0], mine[1], mine[2]) + ", and the PEs' calls range from " + describe(r[0], r[1], r[2])
                + " to " + describe(r[3], r[4], r[5]) + " (every PE must call malloc/calloc/align/realloc/free alike and"
                + " in the same order)");
        }
    }

    private static String describe(final long callOp, final long a, final long b) {
        final int op = (int) (callOp & 0xFF);
        final String name = op < NAMES.length ? NAMES[op] : "?";
        final String args = switch (op) {
            case FREE -> a == BAD_POINTER ? "(a bad pointer)" : "(offset " + a + ")";
            case REALLOC -> "(offset " + a + ", " + b + ")";
            case ALIGN -> "(" + b + ", " + a + ")";
            default -> "(" + a + ")";
        };
        return "call #" + (callOp >>> 8) + " " + name + args;
    }
}
