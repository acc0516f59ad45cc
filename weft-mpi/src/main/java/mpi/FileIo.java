package mpi;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * The local file under an MPI {@link File}: positional reads and writes of packed data through a view
 * ({@link FileLayout}), run by run, on a {@link FileChannel} (pread/pwrite: no shared channel position, so
 * threads and ranks never disturb each other's offsets). The ranks of a job run on one machine and open the
 * same file, so the file system itself is what they share. Reads and writes through views with holes are sieved
 * (many runs and the small holes between them in one call; a write reads, patches and writes back under an
 * exclusive lock of each window), and every write (while writes are sieved: {@link #DS_WRITE}) and atomic-mode
 * access holds a byte-range lock ({@link FileLocks}): atomic mode's accesses do not interleave, and a sieved write
 * never writes back stale bytes over another rank's write into its holes.
 */
final class FileIo {
    /** A read goes through holes smaller than this rather than making another call (data sieving). */
    static final long SIEVE_GAP = 64 * 1024;
    /** The most bytes (data and holes) one sieving read takes. */
    private static final int SIEVE_BUFFER = 1 << 20;

    /** The hint that turns sieved writes off ("disable"; "enable" and "automatic" keep them, as ROMIO). */
    static final String DS_WRITE = "romio_ds_write";

    private final FileChannel channel;
    private final FileLocks locks;
    /** The channel reads too (a sieved write reads its window first). */
    private final boolean readable;
    private volatile boolean sieveWrites = true;

    FileIo(final FileChannel channel, final FileLocks locks, final boolean readable) {
        this.channel = channel;
        this.locks = locks;
        this.readable = readable;
    }

    /** Sets whether writes through views with holes are sieved, from the file's hints ({@link #DS_WRITE}). */
    void hints(final Info info) throws MPIException {
        final String v = info == null ? null : info.get(DS_WRITE);
        sieveWrites = v == null || !v.trim().equalsIgnoreCase("disable");
    }

    /** Writes {@code len} bytes of {@code packed} at view position {@code data}; returns {@code len}. */
    long write(final FileLayout view, final long data, final MemorySegment packed, final long len,
               final boolean atomic) throws MPIException {
        return move(true, view, data, packed, len, atomic);
    }

    /** Reads up to {@code len} bytes at view position {@code data} into {@code packed}; fewer at end of file. */
    long read(final FileLayout view, final long data, final MemorySegment packed, final long len,
              final boolean atomic) throws MPIException {
        return move(false, view, data, packed, len, atomic);
    }

    /**
     * An access under the byte-range locks its kind needs ({@link FileLocks}): a write shares the range it
     * touches, a sieved or atomic-mode write holds it alone, an atomic-mode read shares it, a read takes none.
     * With sieved writes off ({@link #DS_WRITE}, a hint every rank of the open gives alike) a write takes none
     * either: the two lock calls cost a small write about 3 us (bench/results, session 29).
     */
    private long move(final boolean write, final FileLayout view, final long data, final MemorySegment packed,
                      final long len, final boolean atomic) throws MPIException {
        if (len == 0) {
            return 0;
        }
        try {
            if (!atomic && !(write && sieving())) { // a read, or a write where nobody of this open sieves
                return runs(write, view, data, packed, len);
            }
            final boolean sieve = write && readable && !view.contiguous();
            if (sieve && !atomic) { // each window holds its range alone while it is patched: ranks pipeline
                return sievedWrite(view, data, packed, len, true);
            }
            final long first = view.fileOffset(data);
            final long end = view.fileOffset(data + len - 1) + 1;
            try (FileLocks.Held ignored = locks.lock(first, end, atomic && write)) { // else a write shares
                return sieve && sieving() ? sievedWrite(view, data, packed, len, false)
                    : runs(write, view, data, packed, len);
            }
        } catch (final IOException e) {
            throw error(e, write ? "write" : "read");
        }
    }

    /** Writes through views with holes are sieved, so every write of this open takes a lock. */
    private boolean sieving() {
        return sieveWrites && locks.supported();
    }

    private long runs(final boolean write, final FileLayout view, final long data, final MemorySegment packed,
                      final long len) throws IOException {
        if (!write && !view.contiguous()) {
            return sieved(view, data, packed, len);
        }
        final ByteBuffer bytes = packed.asByteBuffer();
        long done = 0;
        final FileLayout.Cursor cur = view.cursor(data);
        while (done < len) {
            final int n = (int) Math.min(cur.run(len - done), Integer.MAX_VALUE);
            final long at = cur.fileOffset();
            cur.skip(n);
            final ByteBuffer part = bytes.slice((int) done, n);
            final int moved = write ? writeFully(part, at) : readFully(part, at);
            done += moved;
            if (moved < n) {
                break; // end of file
            }
        }
        return done;
    }

    /** Writes all of {@code seg} at file byte {@code at} (an aggregator of a two-phase write), sharing its range. */
    void writeFully(final MemorySegment seg, final long at) throws MPIException {
        try {
            if (!sieving()) {
                writeFully(seg.asByteBuffer(), at);
                return;
            }
            try (FileLocks.Held ignored = locks.lock(at, at + seg.byteSize(), false)) {
                writeFully(seg.asByteBuffer(), at);
            }
        } catch (final IOException e) {
            throw error(e, "write");
        }
    }

    /** Reads {@code seg}'s bytes from file byte {@code at}; fewer at the end of the file (returned). */
    long readFully(final MemorySegment seg, final long at) throws MPIException {
        try {
            return readFully(seg.asByteBuffer(), at);
        } catch (final IOException e) {
            throw error(e, "read");
        }
    }

    /**
     * A read of many runs (data sieving, as ROMIO's independent reads): runs separated by holes under {@link
     * #SIEVE_GAP} are read with their holes in one call of at most {@link #SIEVE_BUFFER} bytes into native memory,
     * then copied out; a run that fills the buffer alone is read in place. Two cursors walk the view: one finds
     * where a window ends, the other copies its runs, so a window holds any number of runs. Reads never change
     * the file, so no lock is needed.
     */
    private long sieved(final FileLayout view, final long data, final MemorySegment packed, final long len)
        throws IOException {
        long done = 0;
        try (Window w = new Window(view, data, len)) {
            final FileLayout.Cursor copy = w.copy;
            while (done < len) {
                w.next();
                final long start = w.start;
                final long scanned = w.scanned;
                if (w.runs == 1) { // alone, or larger than the buffer: in place
                    final long n = scanned - done;
                    final long moved = readFully(packed.asSlice(done, n).asByteBuffer(), start);
                    done += moved;
                    copy.skip(n);
                    if (moved < n) {
                        break; // end of file
                    }
                    continue;
                }
                final MemorySegment sieve = w.buffer();
                final long got = readFully(sieve.asByteBuffer(), start);
                while (done < scanned) {
                    final long from = copy.fileOffset() - start;
                    final long n = copy.run(scanned - done);
                    final long m = Math.max(0, Math.min(n, got - from));
                    copyRun(sieve, from, packed, done, m);
                    done += m;
                    copy.skip(n);
                    if (m < n) {
                        return done; // end of file
                    }
                }
            }
        }
        return done;
    }

    /**
     * A write of many runs (data sieving, as ROMIO's independent writes): the windows of {@link #sieved} are read
     * (bytes past the end of the file read as zeros, as a hole does), patched with the runs and written back
     * whole, each under an exclusive lock of its range ({@code lockWindows}; else the caller holds the whole
     * access's); a run alone in its window is written in place, sharing its range.
     */
    private long sievedWrite(final FileLayout view, final long data, final MemorySegment packed, final long len,
                             final boolean lockWindows) throws IOException, MPIException {
        long done = 0;
        try (Window w = new Window(view, data, len)) {
            final FileLayout.Cursor copy = w.copy;
            while (done < len) {
                w.next();
                final long start = w.start;
                final long scanned = w.scanned;
                if (w.runs == 1) {
                    final long n = scanned - done;
                    try (FileLocks.Held ignored = lockWindows ? locks.lock(start, w.end, false) : null) {
                        writeFully(packed.asSlice(done, n).asByteBuffer(), start);
                    }
                    done += n;
                    copy.skip(n);
                    continue;
                }
                final MemorySegment window = w.buffer();
                try (FileLocks.Held ignored = lockWindows ? locks.lock(start, w.end, true) : null) {
                    final long got = readFully(window.asByteBuffer(), start);
                    window.asSlice(got).fill((byte) 0);
                    while (done < scanned) {
                        final long to = copy.fileOffset() - start;
                        final long n = copy.run(scanned - done);
                        copyRun(packed, done, window, to, n);
                        done += n;
                        copy.skip(n);
                    }
                    writeFully(window.asByteBuffer(), start);
                }
            }
        }
        return done;
    }

    /**
     * The windows of a sieved access, one after the other: from where the last one ended, the runs whose holes
     * stay under {@link #SIEVE_GAP} and whose span stays within {@link #SIEVE_BUFFER} (always at least one run);
     * the native buffer a window is read into, and the cursor that copies the runs ({@code copy}), behind the one
     * that finds where a window ends.
     */
    private static final class Window implements AutoCloseable {
        final FileLayout.Cursor copy;
        private final FileLayout.Cursor scan;
        private final long len;
        private final long size;
        private final Arena arena = Arena.ofConfined();
        private MemorySegment sieve;
        /** The window's file range, its runs, and the access's bytes up to its end. */
        long start;
        long end;
        int runs;
        long scanned;

        Window(final FileLayout view, final long data, final long len) {
            this.copy = view.cursor(data);
            this.scan = copy.copy();
            this.len = len;
            this.size = Math.min(SIEVE_BUFFER, view.fileOffset(data + len - 1) + 1 - copy.fileOffset());
        }

        void next() {
            start = scan.fileOffset();
            end = start;
            runs = 0;
            while (scanned < len) {
                final long at = scan.fileOffset();
                final long n = scan.run(len - scanned);
                if (runs > 0 && (at - end >= SIEVE_GAP || at + n - start > SIEVE_BUFFER)) {
                    return;
                }
                runs++;
                end = at + n;
                scanned += n;
                scan.skip(n);
            }
        }

        /** The window's bytes, in the access's buffer (made at the first window of more than one run). */
        MemorySegment buffer() {
            if (sieve == null) {
                sieve = arena.allocate(size);
            }
            return sieve.asSlice(0, end - start);
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    /** Copies a run into or out of a sieve: the few bytes of a strided view's run by value, longer runs in bulk. */
    private static void copyRun(final MemorySegment from, final long at, final MemorySegment to, final long into,
                                final long n) {
        if (n == Integer.BYTES) {
            to.set(ValueLayout.JAVA_INT_UNALIGNED, into, from.get(ValueLayout.JAVA_INT_UNALIGNED, at));
        } else if (n == Long.BYTES) {
            to.set(ValueLayout.JAVA_LONG_UNALIGNED, into, from.get(ValueLayout.JAVA_LONG_UNALIGNED, at));
        } else if (n < 16) {
            for (long b = 0; b < n; b++) {
                to.set(ValueLayout.JAVA_BYTE, into + b, from.get(ValueLayout.JAVA_BYTE, at + b));
            }
        } else {
            MemorySegment.copy(from, at, to, into, n);
        }
    }

    private int writeFully(final ByteBuffer b, final long at) throws IOException {
        while (b.hasRemaining()) {
            channel.write(b, at + b.position());
        }
        return b.position();
    }

    private int readFully(final ByteBuffer b, final long at) throws IOException {
        while (b.hasRemaining()) {
            if (channel.read(b, at + b.position()) < 0) {
                break;
            }
        }
        return b.position();
    }

    long size() throws MPIException {
        try {
            return channel.size();
        } catch (final IOException e) {
            throw error(e, "size");
        }
    }

    /** Truncates or extends the file to {@code size} bytes (an extension reads as zeros). */
    void setSize(final long size, final boolean shrink) throws MPIException {
        try {
            final long now = channel.size();
            if (size < now && shrink) {
                channel.truncate(size);
            } else if (size > now) {
                channel.write(ByteBuffer.allocate(1), size - 1);
            }
        } catch (final IOException e) {
            throw error(e, "resize");
        }
    }

    void force() throws MPIException {
        try {
            channel.force(true);
        } catch (final IOException e) {
            throw error(e, "sync");
        }
    }

    void close() throws MPIException {
        try {
            channel.close();
        } catch (final IOException e) {
            throw error(e, "close");
        } finally {
            locks.close();
        }
    }

    /** The MPI error class of a file system failure. */
    static MPIException error(final IOException e, final String what) {
        final int cls = switch (e) {
            case NoSuchFileException x -> MPI.ERR_NO_SUCH_FILE;
            case FileAlreadyExistsException x -> MPI.ERR_FILE_EXISTS;
            case AccessDeniedException x -> MPI.ERR_ACCESS;
            case FileSystemException x when String.valueOf(x.getReason()).contains("directory") -> MPI.ERR_BAD_FILE;
            default -> String.valueOf(e.getMessage()).contains("No space left") ? MPI.ERR_NO_SPACE
                : String.valueOf(e.getMessage()).contains("quota") ? MPI.ERR_QUOTA : MPI.ERR_IO;
        };
        return new MPIException(cls, "file " + what + " failed: " + e, e);
    }
}
