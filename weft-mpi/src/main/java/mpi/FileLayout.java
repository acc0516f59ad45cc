package mpi;

/**
 * A file view as arithmetic (MPI-IO): the file from byte {@code disp} on is a tiling of the filetype, copy
 * {@code n} at {@code disp + n * extent}, and the view's data are the filetype's blocks in type-map order,
 * tile after tile. A position in the view counts data bytes (an offset in etypes times the etype's size);
 * {@link #run} maps it to the file byte where it lies and the bytes that follow it contiguously there. In the
 * external32 representation the filetype tiles the file as that representation lays it out
 * ({@link External32#layout}: no padding), and the data are converted on their way ({@link #external32}).
 */
final class FileLayout {
    /** The default view: the whole file as bytes. */
    static final FileLayout BYTES = new FileLayout(0, MPI.BYTE, MPI.BYTE, "native", MPI.BYTE);

    final long disp;
    final Datatype etype;
    final Datatype filetype;
    final String datarep;
    /** True when the data in the file are external32 (big-endian, unpadded), converted as they move. */
    final boolean external32;
    /** The filetype as it lies in the file: itself, or its external32 layout. */
    private final Datatype tiling;
    /** Data bytes of one filetype, and the end (in data bytes) of each of its blocks. */
    private final long tileData;
    private final long[] ends;
    /** The tiling's blocks and extent, as the cursor reads them once a run. */
    private final long[] offsets;
    private final long[] lengths;
    private final long extent;

    private FileLayout(final long disp, final Datatype etype, final Datatype filetype, final String datarep,
                       final Datatype tiling) {
        this.disp = disp;
        this.etype = etype;
        this.filetype = filetype;
        this.datarep = datarep;
        this.external32 = External32.NAME.equals(datarep);
        this.tiling = tiling;
        this.tileData = tiling.size;
        this.offsets = tiling.offsets;
        this.lengths = tiling.lengths;
        this.extent = tiling.extent();
        this.ends = new long[tiling.lengths.length];
        long sum = 0;
        for (int b = 0; b < ends.length; b++) {
            sum += tiling.lengths[b];
            ends[b] = sum;
        }
    }

    /**
     * A checked view: the etype and filetype must hold data, the filetype a whole number of etypes, with
     * non-negative, increasing, non-overlapping blocks (MPI's rules for filetypes), in the file's data
     * representation: "native", "internal" (the same here) or "external32".
     */
    static FileLayout of(final long disp, final Datatype etype, final Datatype filetype, final String datarep)
        throws MPIException {
        if (etype == null || filetype == null) {
            throw new MPIException(MPI.ERR_TYPE, "null etype or filetype");
        }
        etype.checkUsable();
        filetype.checkUsable();
        if (datarep == null || !datarep.equals("native") && !datarep.equals("internal")
            && !datarep.equals(External32.NAME)) {
            throw new MPIException(MPI.ERR_UNSUPPORTED_DATAREP, "data representation " + datarep + " (only \"native\", "
                + "\"internal\", which is the same here, and \"" + External32.NAME + "\")");
        }
        if (disp < 0) {
            throw new MPIException(MPI.ERR_ARG, "negative view displacement " + disp);
        }
        if (etype.size == 0 || filetype.size == 0 || filetype.size % etype.size != 0) {
            throw new MPIException(MPI.ERR_TYPE, "a filetype of " + filetype.size + " data bytes is not a whole, "
                + "non-zero number of etypes of " + etype.size + " B");
        }
        // the filetype's rules hold where it lies: in the file's representation
        final Datatype tiling = External32.NAME.equals(datarep) ? External32.layout(filetype) : filetype;
        long end = 0;
        for (int b = 0; b < tiling.offsets.length; b++) {
            if (tiling.offsets[b] < end) {
                throw new MPIException(MPI.ERR_TYPE, "a filetype's blocks must be non-negative and increasing, "
                    + "without overlap (block " + b + " at byte " + tiling.offsets[b] + " in the file)");
            }
            end = tiling.offsets[b] + tiling.lengths[b];
        }
        if (tiling.trueUb - tiling.trueLb > tiling.extent()) {
            throw new MPIException(MPI.ERR_TYPE, "a filetype's data (" + (tiling.trueUb - tiling.trueLb)
                + " B) reach past its extent (" + tiling.extent() + " B in the file): its tiles would overlap");
        }
        return new FileLayout(disp, etype, filetype, datarep, tiling);
    }

    /** The extent of {@code type} in the file, in bytes (MPI_FILE_GET_TYPE_EXTENT). */
    long extent(final Datatype type) throws MPIException {
        return external32 ? External32.layout(type).extent() : type.extent();
    }

    /** The file byte holding view position {@code data}. */
    long fileOffset(final long data) {
        if (tiling.contiguous) {
            return disp + data;
        }
        final long tile = data / tileData;
        final long in = data % tileData;
        final int b = block(in);
        final long blockStart = b == 0 ? 0 : ends[b - 1];
        return disp + tile * extent + offsets[b] + in - blockStart;
    }

    /** The number of view bytes from {@code data} on that lie contiguously in the file (at most {@code max}). */
    long run(final long data, final long max) {
        if (tiling.contiguous) {
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
        if (tiling.contiguous) {
            return rel;
        }
        final long tile = rel / extent;
        final long in = rel % extent;
        long data = tile * tileData;
        for (int b = 0; b < ends.length && tiling.offsets[b] < in; b++) {
            data += Math.min(tiling.lengths[b], in - tiling.offsets[b]);
        }
        return data;
    }

    /**
     * At most how many runs the {@code len} view bytes from {@code data} lie in: the filetype blocks they touch
     * (adjacent blocks may make one run), found without walking them.
     */
    long runsAtMost(final long data, final long len) {
        if (len <= 0) {
            return 0;
        }
        return tiling.contiguous ? 1 : blockIndex(data + len - 1) - blockIndex(data) + 1;
    }

    /** The number of blocks of the tiling before the one holding view position {@code data}. */
    private long blockIndex(final long data) {
        return data / tileData * ends.length + block(data % tileData);
    }

    /** True if the view's data lie contiguously in the file (one run from any position). */
    boolean contiguous() {
        return tiling.contiguous;
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
        /** The view position (contiguous filetype), or the tile's first file byte, its block and the bytes into it. */
        private long data;
        private long tileBase;
        private int block;
        private long in;

        private Cursor(final Cursor from) {
            this.data = from.data;
            this.tileBase = from.tileBase;
            this.block = from.block;
            this.in = from.in;
        }

        /** A cursor at this one's position, moving on its own. */
        Cursor copy() {
            return new Cursor(this);
        }

        private Cursor(final long data) {
            this.data = data;
            if (!tiling.contiguous) {
                tileBase = disp + data / tileData * extent;
                final long inTile = data % tileData;
                block = block(inTile);
                in = inTile - (block == 0 ? 0 : ends[block - 1]);
            }
        }

        /** The file byte of the current position. */
        long fileOffset() {
            return tiling.contiguous ? disp + data : tileBase + offsets[block] + in;
        }

        /** The bytes from here that lie contiguously in the file (at most {@code max}). */
        long run(final long max) {
            return tiling.contiguous ? max : Math.min(max, lengths[block] - in);
        }

        /** Moves {@code n} view bytes on. */
        void skip(final long n) {
            data += n;
            if (tiling.contiguous) {
                return;
            }
            in += n;
            while (in >= lengths[block]) { // (an empty block is passed at once)
                in -= lengths[block];
                if (++block == lengths.length) {
                    block = 0;
                    tileBase += extent;
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
