package mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An aggregator's side of a two-phase collective access ({@link FileTwoPhase}): the runs every rank sent for
 * this aggregator's domain, merged into file order, moved through one staging buffer in large positional calls.
 * A write copies runs that continue each other (from whichever rank) into the buffer and writes it when the
 * next run does not continue it or the buffer is full; it writes only bytes some rank gave, so holes between
 * runs keep what the file holds (no read-modify-write, no lock). A read reads through holes under {@link
 * FileIo#SIEVE_GAP}, as {@link FileIo}'s sieved reads do (over a rank's view there, over the merged runs here),
 * and copies each run to where its rank's data go back from. A run larger than the buffer moves in place.
 */
final class FileStaging {
    /** Runs one read through holes serves at most. */
    private static final int SIEVE_RUNS = 4096;

    private final FileIo io;
    private final MemorySegment buf;
    private final long cap;

    FileStaging(final Arena arena, final long cap, final FileIo io) {
        this.io = io;
        this.cap = cap;
        this.buf = arena.allocate(cap, 64);
    }

    /** Writes the runs received ({@code data}: their bytes, source after source). */
    void write(final FileExchange x, final MemorySegment data) throws MPIException {
        final Merge m = new Merge(x);
        long start = -1;
        long end = -1;
        while (m.next()) {
            if (start >= 0 && m.off <= end && m.off + m.len - start <= cap) {
                MemorySegment.copy(data, m.pos, buf, m.off - start, m.len); // continues (or overlaps) the staged bytes
                end = Math.max(end, m.off + m.len);
                continue;
            }
            flush(start, end);
            start = -1;
            if (m.len >= cap) {
                io.writeFully(data.asSlice(m.pos, m.len), m.off);
                continue;
            }
            MemorySegment.copy(data, m.pos, buf, 0, m.len);
            start = m.off;
            end = m.off + m.len;
        }
        flush(start, end);
    }

    private void flush(final long start, final long end) throws MPIException {
        if (start >= 0) {
            io.writeFully(buf.asSlice(0, end - start), start);
        }
    }

    /** Reads the runs received into {@code out}, where each source's data go back from (source after source). */
    void read(final FileExchange x, final MemorySegment out) throws MPIException {
        final Merge m = new Merge(x);
        final long[] cursor = new long[x.plan.size()];
        for (int r = 0; r < cursor.length; r++) {
            cursor[r] = x.dataStart[r];
        }
        final long[] runs = new long[3 * SIEVE_RUNS];
        boolean more = m.next();
        while (more) {
            if (m.len >= cap) {
                fill(out.asSlice(cursor[m.src], m.len), m.off);
                cursor[m.src] += m.len;
                more = m.next();
                continue;
            }
            // a window of runs within the buffer, none after a hole of the sieve gap or more
            final long start = m.off;
            long end = m.off + m.len;
            int k = 0;
            do {
                runs[3 * k] = m.off;
                runs[3 * k + 1] = m.len;
                runs[3 * k + 2] = m.src;
                k++;
                end = Math.max(end, m.off + m.len);
                more = m.next();
            } while (more && k < SIEVE_RUNS && m.len < cap && m.off - end < FileIo.SIEVE_GAP
                && m.off + m.len - start <= cap);
            fill(buf.asSlice(0, end - start), start);
            for (int i = 0; i < k; i++) {
                final int src = (int) runs[3 * i + 2];
                MemorySegment.copy(buf, runs[3 * i] - start, out, cursor[src], runs[3 * i + 1]);
                cursor[src] += runs[3 * i + 1];
            }
        }
    }

    /** Reads {@code to}'s bytes from file byte {@code at}; what lies past the end of the file reads as zeros. */
    private void fill(final MemorySegment to, final long at) throws MPIException {
        final long got = io.readFully(to, at);
        if (got < to.byteSize()) {
            to.asSlice(got).fill((byte) 0);
        }
    }

    /** The runs of all sources in file order: each source's list is, so a merge of their heads. */
    private static final class Merge {
        private final FileExchange x;
        private final int[] next;
        /** Where each source's next run's data lie. */
        private final long[] srcPos;
        /** The current run: file offset, length, source rank, and where its data lie. */
        long off;
        long len;
        int src;
        long pos;

        Merge(final FileExchange x) {
            this.x = x;
            this.next = new int[x.runsFrom.length];
            this.srcPos = new long[x.runsFrom.length];
            for (int r = 0; r < srcPos.length; r++) {
                srcPos[r] = x.dataStart[r];
            }
        }

        /** Moves to the run with the lowest offset left; false when none is left. */
        boolean next() {
            int best = -1;
            long bestOff = Long.MAX_VALUE;
            for (int r = 0; r < next.length; r++) {
                if (next[r] < x.runsFrom[r]) {
                    final long o = x.theirRuns[2 * (x.runStart[r] + next[r])];
                    if (o < bestOff) {
                        bestOff = o;
                        best = r;
                    }
                }
            }
            if (best < 0) {
                return false;
            }
            final int i = 2 * (x.runStart[best] + next[best]);
            off = x.theirRuns[i];
            len = x.theirRuns[i + 1];
            src = best;
            pos = srcPos[best];
            srcPos[best] += len;
            next[best]++;
            return true;
        }
    }
}
