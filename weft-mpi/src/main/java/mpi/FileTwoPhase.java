package mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Two-phase collective I/O (collective buffering) for a {@link File}'s {@code All} reads and writes. When the
 * ranks' accesses interleave in the file (each rank's view a strided slice of one array, say), a rank alone
 * would move its data in many small runs, one system call each. Instead the file range the ranks touch is cut
 * into one contiguous domain per aggregator, and in one exchange every rank hands each aggregator the runs of
 * its data that lie in its domain; the aggregator then moves its domain in few large positional writes or reads.
 *
 * <pre>
 *   write                                          read
 *   all:  allGather {active, lo, hi, hint, ...}    (same)      -> the plan, or independent I/O
 *   all:  allToAll  {runs, bytes} per aggregator               (same)
 *   all:  allToAllv run list (offset, length)                  (same)
 *   all:  allToAllv data -> aggregators            aggregators: coalesced preads (through holes under 64 KiB)
 *   aggregators: coalesced pwrites                 all:  allToAllv data -> ranks
 *   all:  allReduce MAX of the error class                     (same)
 * </pre>
 * A rank's runs are in file order and the domains follow file order, so a rank's packed data are, as they are,
 * its send buffer (write) or receive buffer (read): only aggregators stage bytes.
 *
 * <p>Hints, by ROMIO's names ({@link File#setInfo} or the open's info): {@code romio_cb_write} and {@code
 * romio_cb_read} {@code enable | disable | automatic} (any rank's disable wins, then any rank's enable;
 * automatic, the default, writes two-phase when the ranks' file ranges interleave and reads independently:
 * on one machine's file system a rank's sieved read through the holes ({@link FileIo}) beat the exchange at 2,
 * 4 and 8 ranks, see bench/mpi/FileCollectiveBench.java), {@code cb_nodes} (the number
 * of aggregators, spread over the ranks; default every rank) and {@code cb_buffer_size} (an aggregator's staging
 * buffer, default 16 MiB). Hints that do not parse are ignored, as ROMIO does. Atomic mode never gets here: its
 * accesses stay independent, under locks.
 */
final class FileTwoPhase {
    static final String CB_WRITE = "romio_cb_write";
    static final String CB_READ = "romio_cb_read";
    static final String CB_NODES = "cb_nodes";
    static final String CB_BUFFER_SIZE = "cb_buffer_size";
    private static final int AUTO = 0;
    private static final int ENABLE = 1;
    private static final int DISABLE = 2;
    private static final long DEFAULT_BUFFER = 16L << 20;
    /** Domains start on page boundaries (past the first): aggregators do not share a page of the file. */
    private static final long ALIGN = 4096;
    /** The fields each rank contributes to the plan. */
    private static final int FIELDS = 7;

    /** Collective accesses that went two-phase in this process (a counter for tests and tuning). */
    static long calls;

    private FileTwoPhase() {
    }

    /**
     * This rank's part of a collective access of {@code len} packed bytes at view position {@code data}; every
     * rank of {@code comm} calls it, a rank whose own arguments failed with {@code ok} false (it takes part with
     * no data, and throws its own error after). Returns the bytes moved (a read stops at the end of the file), or
     * -1 if the ranks agreed on independent I/O: then each moves its own part.
     */
    static long transfer(final boolean write, final Comm comm, final FileIo io, final FileLayout view,
                         final Info info, final long data, final MemorySegment packed, final long len,
                         final boolean ok) throws MPIException {
        // what the plan needs, without walking the runs: most collective reads go independent after all
        final boolean active = ok && len > 0;
        final int size = comm.size;
        final long[] me = {active ? 1 : 0, active ? view.fileOffset(data) : 0,
            active ? view.fileOffset(data + len - 1) + 1 : 0, hint(info, write ? CB_WRITE : CB_READ),
            view.runsAtMost(data, active ? len : 0), number(info, CB_NODES, size), active ? len : 0};
        final long[] all = new long[FIELDS * size];
        comm.allGather(me, FIELDS, MPI.LONG, all, FIELDS, MPI.LONG);
        final Plan plan = Plan.of(all, size, write);
        if (plan == null) {
            return -1;
        }
        calls++;
        final FileExchange x = new FileExchange(comm, plan, active ? FileRuns.of(view, data, len) : FileRuns.NONE);
        final MemorySegment own = packed == null || !ok ? MemorySegment.ofArray(new byte[0]) : packed;
        MPIException err = null;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment theirs = arena.allocate(Math.max(1, x.inBytes), 64).asSlice(0, x.inBytes);
            final long stage = Math.max(ALIGN, number(info, CB_BUFFER_SIZE, DEFAULT_BUFFER));
            final FileStaging st = new FileStaging(arena, Math.min(stage, Math.max(ALIGN, x.inBytes)), io);
            if (write) {
                x.data(own, theirs, true);
                err = aggregate(() -> st.write(x, theirs));
            } else {
                err = aggregate(() -> st.read(x, theirs));
                x.data(theirs, own, false);
            }
        }
        final int[] worst = {err == null ? 0 : Math.max(1, err.getErrorClass())};
        comm.allReduce(worst, 1, MPI.INT, MPI.MAX);
        if (err != null) {
            throw err; // this rank's own aggregation failed: its own error, with its cause
        }
        if (worst[0] != 0) {
            throw new MPIException(worst[0], "an aggregator of the collective " + (write ? "write" : "read")
                + " failed (error class " + worst[0] + ")");
        }
        if (!ok || write) {
            return ok ? len : 0;
        }
        return Math.max(0, Math.min(len, view.dataBefore(io.size()) - data));
    }

    @FunctionalInterface
    private interface Step {
        void run() throws MPIException;
    }

    /** An aggregator's step: null if it went well, else its error (every rank hears of its class). */
    private static MPIException aggregate(final Step step) {
        try {
            step.run();
            return null;
        } catch (final MPIException e) {
            return e;
        } catch (final RuntimeException e) {
            return new MPIException(MPI.ERR_INTERN, "two-phase aggregation failed: " + e, e);
        }
    }

    private static long hint(final Info info, final String key) throws MPIException {
        final String v = info == null ? null : info.get(key);
        return v == null ? AUTO : switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "enable" -> ENABLE;
            case "disable" -> DISABLE;
            default -> AUTO;
        };
    }

    /** A positive number hint, with an optional k/m/g suffix; {@code dflt} if absent or unreadable. */
    private static long number(final Info info, final String key, final long dflt) throws MPIException {
        final String v = info == null ? null : info.get(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        final String t = v.trim().toLowerCase(java.util.Locale.ROOT);
        final char last = t.charAt(t.length() - 1);
        final long unit = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : last == 'g' ? 1L << 30 : 1;
        try {
            final long n = Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
            return n > 0 ? n : dflt;
        } catch (final NumberFormatException e) {
            return dflt; // as ROMIO: a hint that does not parse is ignored
        }
    }

    /**
     * What the ranks agreed, computed alike on every rank from the gathered fields: the range [lo, hi) of the
     * file the active ranks touch, cut into {@code aggregators} domains of {@code domain} bytes.
     */
    record Plan(int size, int aggregators, long lo, long hi, long domain) {
        static Plan of(final long[] all, final int size, final boolean write) {
            int active = 0;
            boolean enable = false;
            long runs = 0;
            long bytes = 0;
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            long nodes = size;
            for (int r = 0; r < size; r++) {
                final int f = r * FIELDS;
                if (all[f + 3] == DISABLE) {
                    return null;
                }
                enable |= all[f + 3] == ENABLE;
                nodes = Math.min(nodes, all[f + 5]);
                if (all[f] == 1) {
                    active++;
                    runs += all[f + 4];
                    bytes += all[f + 6];
                    lo = Math.min(lo, all[f + 1]);
                    hi = Math.max(hi, all[f + 2]);
                }
            }
            // the exchange counts in ints: every rank's bytes, and two longs per run
            if (active == 0 || bytes >= Integer.MAX_VALUE || 2 * runs >= Integer.MAX_VALUE
                || !enable && (!write || active < 2 || !interleaved(all, size))) {
                return null;
            }
            final int aggs = (int) Math.max(1, Math.min(size, nodes));
            final long per = (hi - lo + aggs - 1) / aggs;
            return new Plan(size, aggs, lo, hi, Math.max(ALIGN, (per + ALIGN - 1) / ALIGN * ALIGN));
        }

        /** Some two active ranks' file ranges overlap (then a rank alone would move many small runs). */
        private static boolean interleaved(final long[] all, final int size) {
            for (int a = 0; a < size; a++) {
                for (int b = a + 1; b < size; b++) {
                    final int fa = a * FIELDS;
                    final int fb = b * FIELDS;
                    if (all[fa] == 1 && all[fb] == 1 && all[fa + 1] < all[fb + 2] && all[fb + 1] < all[fa + 2]) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** The domain holding file byte {@code off}. */
        int domainOf(final long off) {
            return (int) Math.min(aggregators - 1, (off - lo) / domain);
        }

        /** The end of domain {@code k} (the last one ends at {@code hi}). */
        long domainEnd(final int k) {
            return k == aggregators - 1 ? hi : lo + (k + 1) * domain;
        }

        /** The rank that aggregates domain {@code k} (spread over the ranks, in rank order). */
        int aggregator(final int k) {
            return (int) ((long) k * size / aggregators);
        }
    }
}
