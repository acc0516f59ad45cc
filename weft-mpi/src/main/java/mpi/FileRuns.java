package mpi;

import java.util.Arrays;

/**
 * One rank's part of a file access as runs of contiguous file bytes, in the order of its packed data, which is
 * file order (a view's blocks are increasing and its tiles do not overlap: {@link FileLayout#of}); adjacent runs
 * are merged. What {@link FileTwoPhase} cuts at domain boundaries and sends to the aggregators.
 */
final class FileRuns {
    static final FileRuns NONE = new FileRuns(new long[0], new long[0], 0);

    /** File offset and length of each run. */
    final long[] off;
    final long[] len;
    final int count;

    private FileRuns(final long[] off, final long[] len, final int count) {
        this.off = off;
        this.len = len;
        this.count = count;
    }

    /** The runs of {@code total} view bytes from view position {@code data}. */
    static FileRuns of(final FileLayout view, final long data, final long total) {
        long[] o = new long[16];
        long[] l = new long[16];
        int n = 0;
        long pos = 0;
        final FileLayout.Cursor cur = view.cursor(data);
        while (pos < total) {
            final long run = cur.run(total - pos);
            final long at = cur.fileOffset();
            cur.skip(run);
            if (n > 0 && o[n - 1] + l[n - 1] == at) {
                l[n - 1] += run;
            } else {
                if (n == o.length) {
                    o = Arrays.copyOf(o, 2 * n);
                    l = Arrays.copyOf(l, 2 * n);
                }
                o[n] = at;
                l[n] = run;
                n++;
            }
            pos += run;
        }
        return new FileRuns(o, l, n);
    }
}
