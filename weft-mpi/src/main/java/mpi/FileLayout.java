package mpi;

/**
 * A file view as arithmetic (MPI-IO): the file from byte {@code disp} on is a tiling of the filetype, copy
 * {@code n} at {@code disp + n * extent}, and the view's data are the filetype's blocks in type-map order,
 * tile after tile. A position in the view counts data bytes (an offset in etypes times the etype's size);
 * {@link #run} maps it to the file byte where it lies and the bytes that follow it contiguously there.
 */
final class FileLayout {
    /** The default view: the whole file as bytes. */
    static final FileLayout BYTES = new FileLayout(0, MPI.BYTE, MPI.BYTE, "native");

    final long disp;
    final Datatype etype;
    final Datatype filetype;
    final String datarep;
    /** Data bytes of one filetype, and the end (in data bytes) of each of its blocks. */
    private final long tileData;
    private final long[] ends;

    private FileLayout(final long disp, final Datatype etype, final Datatype filetype, final String datarep) {
        this.disp = disp;
        this.etype = etype;
        this.filetype = filetype;
        this.datarep = datarep;
        this.tileData = filetype.size;
        this.ends = new long[filetype.lengths.length];
        long sum = 0;
        for (int b = 0; b < ends.length; b++) {
            sum += filetype.lengths[b];
            ends[b] = sum;
        }
    }

    /**
     * A checked view: the etype and filetype must hold data, the filetype a whole number of etypes, with
     * non-negative, increasing, non-overlapping blocks (MPI's rules for filetypes); only the native
     * representation exists here ("internal" is the same).
     */
    static FileLayout of(final long disp, final Datatype etype, final Datatype filetype, final String datarep)
        throws MPIException {
        if (etype == null || filetype == null) {
            throw new MPIException(MPI.ERR_TYPE, "null etype or filetype");
        }
        etype.checkUsable();
        filetype.checkUsable();
        if (datarep == null || !datarep.equals("native") && !datarep.equals("internal")) {
            throw new MPIException(MPI.ERR_UNSUPPORTED_DATAREP, "data representation " + datarep + " (only \"native\" "
                + "and \"internal\", which is the same here)");
        }
        if (disp < 0) {
            throw new MPIException(MPI.ERR_ARG, "negative view displacement " + disp);
        }
        if (etype.size == 0 || filetype.size == 0 || filetype.size % etype.size != 0) {
            throw new MPIException(MPI.ERR_TYPE, "a filetype of " + filetype.size + " data bytes is not a whole, "
                + "non-zero number of etypes of " + etype.size + " B");
        }
        long end = 0;
        for (int b = 0; b < filetype.offsets.length; b++) {
            if (filetype.offsets[b] < end) {
                throw new MPIException(MPI.ERR_TYPE, "a filetype's blocks must be non-negative and increasing, "
                    + "without overlap (block " + b + " at byte " + filetype.offsets[b] + ")");
            }
            end = filetype.offsets[b] + filetype.lengths[b];
        }
        if (filetype.trueUb - filetype.trueLb > filetype.extent()) {
            throw new MPIException(MPI.ERR_TYPE, "a filetype's data (" + (filetype.trueUb - filetype.trueLb)
                + " B) reach past its extent (" + filetype.extent() + " B): its tiles would overlap");
        }
        return new FileLayout(disp, etype, filetype, datarep);
    }

    /** The file byte holding view position {@code data}. */
    long fileOffset(final long data) {
        if (filetype.contiguous) {
            return disp + data;
        }
        final long tile = data / tileData;
        final long in = data % tileData;
        final int b = block(in);
        final long blockStart = b == 0 ? 0 : ends[b - 1];
        return disp + tile * filetype.extent() + filetype.offsets[b] + in - blockStart;
    }

    /** The number of view bytes from {@code data} on that lie contiguously in the file (at most {@code max}). */
    long run(final long data, final long max) {
        if (filetype.contiguous) {
            return max;
        }
        final long in = data % tileData;
        return Math.min(max, ends[block(in)] - in);
    }

    /** The view bytes that lie before file byte {@code fileByte} (how much of the view a file of that size holds). */
    long dataBefore(final long fileByte) {
        final long rel = fileByte - disp;
        if (rel <= 0) {
            return 0;
        }
        if (filetype.contiguous) {
            return rel;
        }
        final long extent = filetype.extent();
        final long tile = rel / extent;
        final long in = rel % extent;
        long data = tile * tileData;
        for (int b = 0; b < ends.length && filetype.offsets[b] < in; b++) {
            data += Math.min(filetype.lengths[b], in - filetype.offsets[b]);
        }
        return data;
    }

    private int block(final long in) {
        int lo = 0;
        int hi = ends.length - 1;
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            if (ends[mid] > in) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }
}
