package mpi;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * The local file under an MPI {@link File}: positional reads and writes of packed data through a view
 * ({@link FileLayout}), run by run, on a {@link FileChannel} (pread/pwrite: no shared channel position, so
 * threads and ranks never disturb each other's offsets). The ranks of a job run on one machine and open the
 * same file, so the file system itself is what they share. In atomic mode an access holds an operating
 * system lock on the byte range it touches (exclusive to write, shared to read) for its whole duration, so
 * overlapping accesses from different ranks (processes) do not interleave.
 */
final class FileIo {
    /** A read goes through holes smaller than this rather than making another call (data sieving). */
    static final long SIEVE_GAP = 64 * 1024;
    /** The most bytes (data and holes) one sieving read takes. */
    private static final int SIEVE_BUFFER = 1 << 20;

    private final FileChannel channel;

    FileIo(final FileChannel channel) {
        this.channel = channel;
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

    private long move(final boolean write, final FileLayout view, final long data, final MemorySegment packed,
                      final long len, final boolean atomic) throws MPIException {
        if (len == 0) {
            return 0;
        }
        try {
            if (!atomic) {
                return runs(write, view, data, packed, len);
            }
            final long first = view.fileOffset(data);
            final long last = view.fileOffset(data + len - 1);
            synchronized (this) { // one JVM may hold one lock per range: threads of a rank take turns
                try (FileLock ignored = channel.lock(first, last + 1 - first, !write)) {
                    return runs(write, view, data, packed, len);
                }
            }
        } catch (final IOException e) {
            throw error(e, write ? "write" : "read");
        }
    }

    private long runs(final boolean write, final FileLayout view, final long data, final MemorySegment packed,
                      final long len) throws IOException {
        final ByteBuffer bytes = packed.asByteBuffer();
        if (!write && !view.contiguous()) {
            return sieved(view, data, packed, len);
        }
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

    /** Writes all of {@code seg} at file byte {@code at} (an aggregator of a two-phase write). */
    void writeFully(final MemorySegment seg, final long at) throws MPIException {
        try {
            writeFully(seg.asByteBuffer(), at);
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
        final FileLayout.Cursor copy = view.cursor(data);
        final FileLayout.Cursor scan = copy.copy();
        long done = 0;
        long scanned = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sieve = null;
            while (done < len) {
                final long start = scan.fileOffset();
                long end = start;
                int runs = 0;
                while (scanned < len) {
                    final long at = scan.fileOffset();
                    final long n = scan.run(len - scanned);
                    if (runs > 0 && (at - end >= SIEVE_GAP || at + n - start > SIEVE_BUFFER)) {
                        break;
                    }
                    runs++;
                    end = at + n;
                    scanned += n;
                    scan.skip(n);
                }
                if (runs == 1) { // alone, or larger than the buffer: in place
                    final long n = scanned - done;
                    final long moved = readFully(packed.asSlice(done, n).asByteBuffer(), start);
                    done += moved;
                    copy.skip(n);
                    if (moved < n) {
                        break; // end of file
                    }
                    continue;
                }
                if (sieve == null) {
                    sieve = arena.allocate(Math.min(SIEVE_BUFFER, view.fileOffset(data + len - 1) + 1 - start));
                }
                final long got = readFully(sieve.asSlice(0, end - start).asByteBuffer(), start);
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

    /** Copies a run out of the sieve: the few bytes of a strided view's run by value, longer runs in bulk. */
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
