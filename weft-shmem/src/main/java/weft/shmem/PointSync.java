package weft.shmem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Point-to-point synchronization: waits and tests on symmetric variables of this PE ({@code waitUntil},
 * {@code test} and their {@code _all/_any/_some/_vector} forms). A wait checks the variable with volatile
 * loads and progresses the worker between checks (an update over tcp is written by this PE's own progress);
 * after {@code WEFT_SHMEM_WAIT_SPINS} checks it yields the processor between checks, and once the wait has
 * lasted {@code WEFT_SHMEM_WAIT_BLOCK_AFTER} it sleeps in the worker's event wait (at most 1 ms at a time:
 * a store through a mapping wakes nobody) between checks.
 */
final class PointSync {
    private static final VarHandle I16 = ValueLayout.JAVA_SHORT.varHandle();

    private final OneSided ops;
    private final int spins;
    private final long blockAfterNs;

    PointSync(final OneSided ops, final int spins, final long blockAfterNs) {
        this.ops = ops;
        this.spins = Math.max(1, spins);
        this.blockAfterNs = Math.max(0, blockAfterNs);
    }

    /** An element type: size in bytes and signedness. */
    record Elem(int size, boolean unsigned) {
        static final Elem S16 = new Elem(2, false);
        static final Elem U16 = new Elem(2, true);
        static final Elem S32 = new Elem(4, false);
        static final Elem U32 = new Elem(4, true);
        static final Elem S64 = new Elem(8, false);
        static final Elem U64 = new Elem(8, true);

        long widen(final long v) {
            return switch (size) {
                case 2 -> unsigned ? v & 0xFFFFL : (short) v;
                case 4 -> unsigned ? v & 0xFFFF_FFFFL : (int) v;
                default -> v;
            };
        }
    }

    static boolean compare(final Elem e, final long v, final int cmp, final long value) {
        final int c = e.size == 8 && e.unsigned ? Long.compareUnsigned(v, value) : Long.compare(v, value);
        return switch (cmp) {
            case Shmem.CMP_EQ -> c == 0;
            case Shmem.CMP_NE -> c != 0;
            case Shmem.CMP_GT -> c > 0;
            case Shmem.CMP_GE -> c >= 0;
            case Shmem.CMP_LT -> c < 0;
            case Shmem.CMP_LE -> c <= 0;
            default -> throw new IllegalArgumentException("unknown comparison " + cmp + " (use Shmem.CMP_EQ ... CMP_LE)");
        };
    }

    static void checkCmp(final int cmp) {
        if (cmp < Shmem.CMP_EQ || cmp > Shmem.CMP_LE) {
            throw new IllegalArgumentException("unknown comparison " + cmp + " (use Shmem.CMP_EQ ... CMP_LE)");
        }
    }

    /** The heap offset of element 0 of {@code ivars} after checking that {@code nelems} aligned elements fit. */
    private long base(final MemorySegment ivars, final long nelems, final Elem e) {
        if (nelems < 0) {
            throw new IllegalArgumentException("negative count " + nelems);
        }
        final long off = ops.heap().offsetOf(ivars, nelems * e.size, "the wait variable");
        if ((ivars.address() & (e.size - 1)) != 0) {
            throw new IllegalArgumentException("the wait variable 0x" + Long.toHexString(ivars.address())
                + " is not aligned to " + e.size + " bytes");
        }
        return off;
    }

    private long load(final Elem e, final long off) {
        final MemorySegment m = ops.heap().memory();
        return e.widen(switch (e.size) {
            case 2 -> (short) I16.getVolatile(m, off);
            case 4 -> (int) OneSided.I32.getVolatile(m, off);
            default -> (long) OneSided.I64.getVolatile(m, off);
        });
    }

    /**
     * Called between checks of a wait that began at {@code start} ({@code System.nanoTime()}): progress, then
     * a pause that grows from a spin into a yield (PEs that outnumber the cores leave them to the PE that has
     * work, and come back as soon as it is done) and, after {@code blockAfterNs}, into a sleep of at most 1 ms
     * in the worker's event wait (woken by transport traffic), so a long wait does not burn a core.
     */
    int pause(final int round, final long start) {
        if (ops.progress() == 0) {
            if (round < spins) {
                Thread.onSpinWait();
            } else if (System.nanoTime() - start < blockAfterNs) {
                Thread.yield();
            } else {
                ops.sleep();
            }
        }
        return round + 1;
    }

    /** Waits until {@code ivar cmp value}; returns the value that satisfied it. */
    long waitUntil(final MemorySegment ivar, final Elem e, final int cmp, final long value) {
        checkCmp(cmp);
        final long off = base(ivar, 1, e);
        final long want = e.widen(value);
        final long start = System.nanoTime();
        int round = 0;
        while (true) {
            final long v = load(e, off);
            if (compare(e, v, cmp, want)) {
                return v;
            }
            round = pause(round, start);
        }
    }

    /** Waits until {@code heap[off]} (a long of the service area) is at least {@code value}. */
    void waitAtLeast(final long off, final long value) {
        waitAtLeast(off, value, Long.MAX_VALUE);
    }

    /**
     * {@link #waitAtLeast(long, long)} until {@code System.nanoTime()} passes {@code deadline}.
     *
     * @return false if the deadline passed first
     */
    boolean waitAtLeast(final long off, final long value, final long deadline) {
        final long start = System.nanoTime();
        int round = 0;
        while ((long) OneSided.I64.getVolatile(ops.heap().memory(), off) < value) {
            round = pause(round, start);
            if ((round & 1023) == 0 && deadline != Long.MAX_VALUE && System.nanoTime() - deadline > 0) {
                return false;
            }
        }
        return true;
    }

    /** True if {@code ivar cmp value} now (after one round of progress). */
    boolean test(final MemorySegment ivar, final Elem e, final int cmp, final long value) {
        checkCmp(cmp);
        final long off = base(ivar, 1, e);
        ops.progress();
        return compare(e, load(e, off), cmp, e.widen(value));
    }

    private static boolean excluded(final int[] status, final long i) {
        return status != null && status[(int) i] != 0;
    }

    private static void checkArrays(final long nelems, final int[] status, final long[] values) {
        if (status != null && status.length < nelems) {
            throw new IllegalArgumentException("status has " + status.length + " entries, nelems is " + nelems);
        }
        if (values != null && values.length < nelems) {
            throw new IllegalArgumentException("values has " + values.length + " entries, nelems is " + nelems);
        }
    }

    /**
     * Looks at every element not excluded by {@code status} and not yet satisfied (recorded in {@code done});
     * fills {@code indices} (if given) with the satisfied ones. {@code values} null = {@code value} for all.
     *
     * @return how many were newly satisfied
     */
    private int scan(final long off, final long nelems, final Elem e, final int[] status, final boolean[] done,
                     final int cmp, final long[] values, final long value, final long[] indices, final int stopAfter) {
        int found = 0;
        for (long i = 0; i < nelems && found < stopAfter; i++) {
            if (done[(int) i] || excluded(status, i)) {
                continue;
            }
            final long want = e.widen(values != null ? values[(int) i] : value);
            if (compare(e, load(e, off + i * e.size), cmp, want)) {
                done[(int) i] = true;
                if (indices != null) {
                    indices[found] = i;
                }
                found++;
            }
        }
        return found;
    }

    private static int active(final long nelems, final int[] status) {
        int a = 0;
        for (long i = 0; i < nelems; i++) {
            a += excluded(status, i) ? 0 : 1;
        }
        return a;
    }

    /**
     * The _all, _any and _some forms. {@code mode} 0 = all (returns 0), 1 = any (returns an index, -1 if every
     * element is excluded), 2 = some (returns how many indices it stored). {@code block} false = test forms:
     * one look (all: 1 if satisfied else 0; any: -1 if none; some: 0 if none).
     */
    long waitMany(final MemorySegment ivars, final long nelems, final Elem e, final int[] status, final long[] indices,
                  final int cmp, final long[] values, final long value, final int mode, final boolean block) {
        checkCmp(cmp);
        checkArrays(nelems, status, values);
        if (indices != null && indices.length < nelems) {
            throw new IllegalArgumentException("indices has " + indices.length + " entries, nelems is " + nelems);
        }
        if (nelems > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many elements " + nelems);
        }
        final long off = base(ivars, nelems, e);
        final int need = active(nelems, status);
        if (need == 0) {
            return mode == 0 ? (block ? 0 : 1) : mode == 1 ? -1 : 0;
        }
        final boolean[] done = new boolean[(int) nelems];
        final long[] one = new long[1];
        int satisfied = 0;
        final long start = System.nanoTime();
        int round = 0;
        while (true) {
            switch (mode) {
                case 0 -> {
                    satisfied += scan(off, nelems, e, status, done, cmp, values, value, null, Integer.MAX_VALUE);
                    if (satisfied == need) {
                        return block ? 0 : 1;
                    }
                }
                case 1 -> {
                    if (scan(off, nelems, e, status, done, cmp, values, value, one, 1) == 1) {
                        return one[0];
                    }
                }
                default -> {
                    final int k = scan(off, nelems, e, status, done, cmp, values, value, indices, Integer.MAX_VALUE);
                    if (k > 0) {
                        return k;
                    }
                }
            }
            if (!block) {
                ops.progress();
                return mode == 0 ? 0 : mode == 1 ? -1 : 0;
            }
            round = pause(round, start);
        }
    }
}
