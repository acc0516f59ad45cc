package mpi;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The exchange of a two-phase collective access ({@link FileTwoPhase}): this rank's runs cut at the domain
 * boundaries and sent to the domains' aggregators (an allToAll of counts, then an allToAllv of the run lists),
 * and the data moved between the ranks' packed buffers and the aggregators' (an allToAllv of bytes). Every
 * count and displacement is per rank, in rank order; aggregators are in domain order, so a rank's runs and data
 * go out (and come back) in file order.
 */
final class FileExchange {
    private final Comm comm;
    final FileTwoPhase.Plan plan;
    /** Runs and bytes this rank sends each rank (non-zero only for aggregators), and those it receives. */
    private final int[] bytesTo;
    final int[] runsFrom;
    final int[] bytesFrom;
    /** Where each source's runs start in {@link #theirRuns} (in runs) and its data in the staged data (bytes). */
    final int[] runStart;
    final int[] dataStart;
    /** The runs received, two longs each (file offset, length), source after source. */
    final long[] theirRuns;
    /** Data bytes received from all sources (an aggregator's share). */
    final long inBytes;

    FileExchange(final Comm comm, final FileTwoPhase.Plan plan, final FileRuns mine) throws MPIException {
        this.comm = comm;
        this.plan = plan;
        final int size = plan.size();
        final int[] runsTo = new int[size];
        bytesTo = new int[size];
        long[] cut = new long[2 * Math.max(4, mine.count)];
        int n = 0;
        for (int i = 0; i < mine.count; i++) {
            long o = mine.off[i];
            long left = mine.len[i];
            while (left > 0) {
                final int k = plan.domainOf(o);
                final long piece = Math.min(left, plan.domainEnd(k) - o);
                final int r = plan.aggregator(k);
                if (n == cut.length) {
                    cut = Arrays.copyOf(cut, 2 * n);
                }
                cut[n++] = o;
                cut[n++] = piece;
                runsTo[r]++;
                bytesTo[r] += (int) piece;
                o += piece;
                left -= piece;
            }
        }
        final int[] counts = new int[2 * size];
        for (int r = 0; r < size; r++) {
            counts[2 * r] = runsTo[r];
            counts[2 * r + 1] = bytesTo[r];
        }
        final int[] got = new int[2 * size];
        comm.allToAll(counts, 2, MPI.INT, got, 2, MPI.INT);
        runsFrom = new int[size];
        bytesFrom = new int[size];
        runStart = new int[size];
        dataStart = new int[size];
        int runs = 0;
        long bytes = 0;
        for (int r = 0; r < size; r++) {
            runsFrom[r] = got[2 * r];
            bytesFrom[r] = got[2 * r + 1];
            runStart[r] = runs;
            dataStart[r] = (int) bytes;
            runs += runsFrom[r];
            bytes += bytesFrom[r];
        }
        inBytes = bytes;
        theirRuns = new long[2 * Math.max(1, runs)];
        comm.allToAllv(cut, twice(runsTo), displacements(twice(runsTo)), MPI.LONG, theirRuns, twice(runsFrom),
            displacements(twice(runsFrom)), MPI.LONG);
    }

    /**
     * Moves the data: to the aggregators ({@code out} is this rank's packed data, {@code in} the aggregator's
     * staged share) or back from them ({@code out} the aggregator's share, {@code in} this rank's packed data).
     */
    void data(final MemorySegment out, final MemorySegment in, final boolean toAggregators) throws MPIException {
        final int[] sc = toAggregators ? bytesTo : bytesFrom;
        final int[] rc = toAggregators ? bytesFrom : bytesTo;
        comm.allToAllv(out.asByteBuffer(), sc, displacements(sc), MPI.BYTE, in.asByteBuffer(), rc,
            displacements(rc), MPI.BYTE);
    }

    private static int[] twice(final int[] a) {
        final int[] t = new int[a.length];
        for (int i = 0; i < a.length; i++) {
            t[i] = 2 * a[i];
        }
        return t;
    }

    private static int[] displacements(final int[] counts) {
        final int[] d = new int[counts.length];
        for (int i = 1; i < counts.length; i++) {
            d[i] = d[i - 1] + counts[i - 1];
        }
        return d;
    }
}
