package mpi;

import java.lang.foreign.MemorySegment;

/**
 * Moves typed data between memory and a file's view: packs {@code count} elements of a memory datatype into
 * a scratch buffer, converts them to the view's data representation ({@link External32}: in place, in bulk)
 * and writes them run by run ({@link FileIo}); or reads, converts back and unpacks. Scratch buffers are the
 * file's own and taken again by later calls, so a loop of small accesses allocates nothing; a buffer larger
 * than {@link #KEEP_MAX} is left to the garbage collector rather than held as long as the file is.
 */
final class FileData {
    private static final long KEEP_MAX = 4L << 20;

    private final FileIo io;
    private final ScratchPool scratch = new ScratchPool(true); // the I/O thread's too

    FileData(final FileIo io) {
        this.io = io;
    }

    /** Moves packed bytes to or from the file: the bytes moved (a read: fewer at the end of the file). */
    @FunctionalInterface
    interface Mover {
        long move(MemorySegment packed, long bytes) throws MPIException;
    }

    /** Writes {@code count} elements of {@code type} at view position {@code at} (data bytes); bytes written. */
    long write(final FileLayout view, final long at, final Span s, final int count, final Datatype type,
               final boolean atomic) throws MPIException {
        return write(view, s, count, type, (packed, bytes) -> io.write(view, at, packed, bytes, atomic));
    }

    /** Packs and converts {@code count} elements of {@code type} for {@code view}, then {@code out} moves them. */
    long write(final FileLayout view, final Span s, final int count, final Datatype type, final Mover out)
        throws MPIException {
        final long bytes = count * type.size;
        final MemorySegment whole = take(view, bytes, type);
        final MemorySegment packed = whole.asSlice(0, bytes);
        TypeCursor.pack(s, count, type, packed, 0);
        if (view.external32) {
            External32.toExternal(packed, count, type);
        }
        final long done = out.move(packed, bytes);
        giveBack(whole);
        return done;
    }

    /**
     * Reads up to {@code count} elements of {@code type} at view position {@code at} (fewer at the end of the
     * file); returns the bytes read: in external32 only whole values, as a value cut short cannot be converted.
     */
    long read(final FileLayout view, final long at, final Span s, final int count, final Datatype type,
              final boolean atomic) throws MPIException {
        return read(view, s, count, type, (packed, bytes) -> io.read(view, at, packed, bytes, atomic));
    }

    /** {@code in} fills the packed bytes of {@code count} elements of {@code type}; converted and unpacked. */
    long read(final FileLayout view, final Span s, final int count, final Datatype type, final Mover in)
        throws MPIException {
        final long bytes = count * type.size;
        final MemorySegment whole = take(view, bytes, type);
        final MemorySegment packed = whole.asSlice(0, bytes);
        long got = in.move(packed, bytes);
        if (view.external32) {
            got = External32.toNative(packed, count, type, got);
        }
        TypeCursor.unpackPrefix(packed, s, count, type, got);
        s.finish();
        giveBack(whole);
        return got;
    }

    /** Checks that {@code view} can convert {@code type} (external32: its values fall on the etype's). */
    static void check(final FileLayout view, final Datatype type) throws MPIException {
        if (view.external32) {
            External32.checkMatch(type, view.etype);
        }
    }

    /** A whole scratch buffer of at least {@code bytes} (slice it), once the view is known to convert the type. */
    private MemorySegment take(final FileLayout view, final long bytes, final Datatype type) throws MPIException {
        check(view, type);
        return scratch.take(bytes);
    }

    private void giveBack(final MemorySegment whole) {
        if (whole.byteSize() <= KEEP_MAX) {
            scratch.give(whole);
        }
    }
}
