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

    /** A walk over the view's runs from view position {@code data}: see {@link Cursor}. */
    Cursor cursor(final long data) {
        return new Cursor(data);
    }

    /**
     * A walk over the view's runs in view order, O(1) a run: {@link #fileOffset} and {@link #run} find a position's
     * block by a division and a search, which a run of a few bytes (a strided view) pays for every run.
     */
    final class Cursor {
        /** The view position (contiguous filetype), or the tile, the block in it and the bytes into the block. */
        private long data;
        private long tile;
        private int block;
        private long in;

        private Cursor(final long data) {
            this.data = data;
            if (!filetype.contiguous) {
                tile = data / tileData;
                final long inTile = data % tileData;
                block = block(inTile);
                in = inTile - (block == 0 ? 0 : ends[block - 1]);
            }
        }

        /** The file byte of the current position. */
        long fileOffset() {
            return filetype.contiguous ? disp + data
                : disp + tile * filetype.extent() + filetype.offsets[block] + in;
        }

        /** The bytes from here that lie contiguously in the file (at most {@code max}). */
        long run(final long max) {
            return filetype.contiguous ? max : Math.min(max, filetype.lengths[block] - in);
        }

        /** Moves {@code n} view bytes on. */
        void skip(final long n) {
            data += n;
            if (filetype.contiguous) {
                return;
            }
            in += n;
            while (in >= filetype.lengths[block]) { // (an empty block is passed at once)
                in -= filetype.lengths[block];
                if (++block == ends.length) {
                    block = 0;
                    tile++;
                }
            }
        }
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
