package mpi;

import java.nio.Buffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file opened by every rank of a communicator (MPI-IO, MPI_File), on the local file system: the ranks of a
 * job run on one machine, so they open the same file and share it through the file system, each reading and
 * writing with positional I/O ({@code FileChannel} pread/pwrite).
 *
 * <p>Where data go: a view ({@link #setView}) makes the file from a displacement on a tiling of a filetype,
 * whose holes belong to other ranks' views; offsets and file pointers count etypes of the view. Three ways
 * to address data: explicit offsets ({@link #readAt}, {@link #writeAt}), this rank's individual file pointer
 * ({@link #read}, {@link #write}, {@link #seek}), and the pointer shared by all ranks ({@link #readShared},
 * {@link #writeShared}, in rank order with {@link #readOrdered}/{@link #writeOrdered}), kept at rank 0 of the
 * file's communicator and moved with ucp atomics. The {@code All} forms are collective: each rank's part is
 * written or read, then the ranks meet, so what one rank wrote collectively another reads after it. When the
 * ranks' parts of a collective write interleave in the file they go two-phase ({@link FileTwoPhase}, ROMIO's
 * collective buffering: aggregators move contiguous domains in large calls; hints {@code romio_cb_write},
 * {@code romio_cb_read}, {@code cb_nodes}, {@code cb_buffer_size}); a read through a view with holes reads
 * runs and small holes together (data sieving).
 * Non-blocking forms ({@code iRead} ...) take direct buffers; the arguments are checked and the file pointers
 * moved when they are called, and the transfer runs on the file's I/O thread while the caller goes on
 * ({@link FileAsync}); close waits for those in flight.
 *
 * <p>Data representations: "native" (and "internal", the same here) keeps data as they are in memory;
 * "external32" keeps them in MPI's portable form, big-endian at fixed sizes with no padding, converted as
 * they move (a Java {@code char} is 2 bytes there, a {@code long} 8, {@code MPI.DOUBLE_INT} 12). A memory
 * datatype whose values do not fall on the etype's cannot be converted: ERR_CONVERSION.
 *
 * <p>Errors: a file's error handler is {@link MPI#ERRORS_RETURN} (MPI's default for files), so failures are
 * thrown as {@link MPIException}s: ERR_AMODE, ERR_NO_SUCH_FILE, ERR_FILE_EXISTS, ERR_ACCESS (reading a
 * write-only file, permission denied), ERR_READ_ONLY (writing a read-only file), ERR_UNSUPPORTED_DATAREP,
 * ERR_CONVERSION, ERR_IO ...
 *
 * <pre>{@code
 * File f = new File(MPI.COMM_WORLD, "out.dat", MPI.MODE_CREATE | MPI.MODE_WRONLY);
 * f.writeAt(rank * 100L, data, 100, MPI.INT);   // offsets in etypes: ints here
 * f.close();
 * }</pre>
 */
public final class File {
    /** The file's own communicator (a dup): its handler is the file's error handler. */
    private final Comm comm;
    private final Path path;
    private final int amode;
    private final FileIo io;
    private final FileData data;
    private final SharedPointer shared;
    /** The non-blocking accesses and their I/O thread. */
    private final FileAsync async = new FileAsync();
    private Info info;
    private FileLayout view = FileLayout.BYTES;
    /** This rank's individual file pointer, in etypes of the view. */
    private long position;
    private boolean atomic;
    private boolean closed;
    private Status beginStatus;

    /** Opens {@code filename} on every rank of {@code comm} (collective) with access mode {@code amode}. */
    public File(final Comm comm, final String filename, final int amode) throws MPIException {
        this(comm, filename, amode, MPI.INFO_NULL);
    }

    /**
     * Opens {@code filename} on every rank of {@code comm} (collective): {@code amode} is one of
     * {@link MPI#MODE_RDONLY}, {@link MPI#MODE_WRONLY}, {@link MPI#MODE_RDWR}, with {@link MPI#MODE_CREATE},
     * {@link MPI#MODE_EXCL}, {@link MPI#MODE_APPEND} (the file pointers start at the end),
     * {@link MPI#MODE_DELETE_ON_CLOSE}, {@link MPI#MODE_SEQUENTIAL} (shared pointer only) or
     * {@link MPI#MODE_UNIQUE_OPEN}. Hints are kept for {@link #getInfo}; the collective-buffering ones steer the
     * {@code All} forms (see the class comment), the others are ignored.
     */
    public File(final Comm comm, final String filename, final int amode, final Info info) throws MPIException {
        final FileOpen.Opened o = FileOpen.open(comm, filename, amode);
        this.comm = o.comm();
        this.path = o.path();
        this.amode = amode;
        this.io = o.io();
        this.data = new FileData(io);
        this.shared = o.shared();
        this.info = info == null ? new Info() : info.dup();
        io.hints(this.info);
        if ((amode & MPI.MODE_APPEND) != 0) {
            position = o.size();
        }
    }

    /** Closes the file on every rank (collective); with MODE_DELETE_ON_CLOSE rank 0 then deletes it. */
    public void close() throws MPIException {
        run(() -> {
            async.close(); // this rank's non-blocking accesses first
            comm.barrier(); // every rank's accesses, the shared pointer's included, are over
            closed = true;
            io.close();
            shared.close();
            if ((amode & MPI.MODE_DELETE_ON_CLOSE) != 0) {
                FileOpen.atRoot(comm, () -> {
                    try {
                        Files.deleteIfExists(path);
                    } catch (final java.io.IOException e) {
                        throw FileIo.error(e, "delete on close of " + path);
                    }
                    return 0;
                });
            }
            comm.free();
            return null;
        });
    }

    /** Deletes a file: ERR_NO_SUCH_FILE if there is none. */
    public static void delete(final String filename) throws MPIException {
        FileOpen.delete(filename);
    }

    /** Deletes a file (hints ignored). */
    public static void delete(final String filename, final Info info) throws MPIException {
        FileOpen.delete(filename);
    }

    // ------------------------------------------------------------------ size, mode, group, hints

    /** Truncates or extends the file to {@code size} bytes (collective). */
    public void setSize(final long size) throws MPIException {
        resize(size, true);
    }

    /** Makes the file at least {@code size} bytes long (collective). */
    public void preallocate(final long size) throws MPIException {
        resize(size, false);
    }

    private void resize(final long size, final boolean shrink) throws MPIException {
        run(() -> {
            FileOpen.atRoot(comm, () -> {
                FileChecks.write(amode);
                if (size < 0) {
                    throw new MPIException(MPI.ERR_ARG, "negative file size " + size);
                }
                io.setSize(size, shrink);
                return 0;
            });
            return null;
        });
    }

    /** The file's size in bytes. */
    public long getSize() throws MPIException {
        final long[] s = new long[1];
        run(() -> {
            s[0] = io.size();
            return null;
        });
        return s[0];
    }

    /** The group of the ranks that opened the file. */
    public Group getGroup() throws MPIException {
        live();
        return comm.getGroup();
    }

    /** The access mode the file was opened with. */
    public int getAMode() throws MPIException {
        live();
        return amode;
    }

    /** Stores hints (collective); they are reported by {@link #getInfo}, collective buffering's are used. */
    public void setInfo(final Info info) throws MPIException {
        live();
        this.info = info == null ? new Info() : info.dup();
        io.hints(this.info);
    }

    /** A copy of the hints given. */
    public Info getInfo() throws MPIException {
        live();
        return info.dup();
    }

    // ------------------------------------------------------------------ views

    /** Sets this rank's view (collective): both file pointers go back to 0. */
    public void setView(final long disp, final Datatype etype, final Datatype filetype, final String datarep)
        throws MPIException {
        setView(disp, etype, filetype, datarep, MPI.INFO_NULL);
    }

    /**
     * Sets this rank's view (collective): the file from byte {@code disp} on is tiled by {@code filetype}
     * (non-negative, increasing displacements; its holes are other ranks' data), and offsets count
     * {@code etype}s. {@code datarep} is "native" (the data as they are in memory), "internal" (the same here)
     * or "external32" (MPI's portable form: big-endian, fixed sizes, no padding; data are converted as they
     * are read and written, and the etype and filetype lie in the file as external32 lays them out: sizes and
     * extents without padding, strides given in elements scaled to that, displacements in bytes as they are;
     * see {@link #getTypeExtent}); any other is ERR_UNSUPPORTED_DATAREP. Resets the individual and the shared
     * file pointer.
     */
    public void setView(final long disp, final Datatype etype, final Datatype filetype, final String datarep,
                        final Info info) throws MPIException {
        run(() -> {
            MPIException mine = null;
            FileLayout v = null;
            try {
                long d = disp;
                if (disp == MPI.DISPLACEMENT_CURRENT) {
                    if ((amode & MPI.MODE_SEQUENTIAL) == 0) {
                        throw new MPIException(MPI.ERR_ARG, "MPI.DISPLACEMENT_CURRENT needs MODE_SEQUENTIAL");
                    }
                    d = view.fileOffset(shared.get() * view.etype.size);
                }
                v = FileLayout.of(d, etype, filetype, datarep);
            } catch (final MPIException e) {
                mine = e;
            }
            FileOpen.agree(comm, mine, false);
            FileOpen.atRoot(comm, () -> {
                shared.set(0);
                return 0;
            });
            view = v;
            position = 0;
            return null;
        });
    }

    /** The view set last (the whole file as bytes until then). */
    public FileView getView() {
        return new FileView(view.disp, view.etype, view.filetype, view.datarep);
    }

    /**
     * The extent of {@code type} in the file in the view's data representation (MPI_FILE_GET_TYPE_EXTENT), in
     * elements of its base type: as in memory for "native", without the pair types' and structs' padding in
     * "external32" ({@code MPI.DOUBLE_INT}: 12 bytes, not 16).
     */
    public int getTypeExtent(final Datatype type) throws MPIException {
        live();
        try {
            Args.checkData(0, type);
            return (int) (view.extent(type) / type.baseSize);
        } catch (final MPIException e) {
            throw fail(e);
        }
    }

    // ------------------------------------------------------------------ explicit offsets

    /** Reads {@code count} elements at {@code offset} (etypes into the view); the status counts what was read. */
    public Status readAt(final long offset, final Object buf, final int count, final Datatype type)
        throws MPIException {
        return run(() -> at(false, offset, Args.data(buf, count, type), count, type));
    }

    /** Writes {@code count} elements at {@code offset} (etypes into the view). */
    public Status writeAt(final long offset, final Object buf, final int count, final Datatype type)
        throws MPIException {
        return run(() -> at(true, offset, Args.data(buf, count, type), count, type));
    }

    /** {@link #readAt}, collective: every rank calls it (two-phase if {@code romio_cb_read} is enable). */
    public Status readAtAll(final long offset, final Object buf, final int count, final Datatype type)
        throws MPIException {
        return collective(() -> all(false, false, offset, buf, count, type));
    }

    /** {@link #writeAt}, collective: when it returns every rank's data are in the file (two-phase if interleaved). */
    public Status writeAtAll(final long offset, final Object buf, final int count, final Datatype type)
        throws MPIException {
        return collective(() -> all(true, false, offset, buf, count, type));
    }

    /** {@link #readAt} into a direct buffer; the request completes once the data are in it ({@link FileAsync}). */
    public Request iReadAt(final long offset, final Buffer buf, final int count, final Datatype type)
        throws MPIException {
        return started(false, buf, count, type, () -> {
            checkAt(false, offset, count, type);
            return offset;
        });
    }

    /** {@link #writeAt} from a direct buffer, which stays untouched until the request completes. */
    public Request iWriteAt(final long offset, final Buffer buf, final int count, final Datatype type)
        throws MPIException {
        return started(true, buf, count, type, () -> {
            checkAt(true, offset, count, type);
            return offset;
        });
    }

    /** {@link #iReadAt}, collective in name: each rank's part is read independently. */
    public Request iReadAtAll(final long offset, final Buffer buf, final int count, final Datatype type)
        throws MPIException {
        return iReadAt(offset, buf, count, type);
    }

    /** {@link #iWriteAt}, collective in name: each rank's part is written independently. */
    public Request iWriteAtAll(final long offset, final Buffer buf, final int count, final Datatype type)
        throws MPIException {
        return iWriteAt(offset, buf, count, type);
    }

    // ------------------------------------------------------------------ the individual file pointer

    /** Reads at this rank's file pointer and moves it past what was read. */
    public Status read(final Object buf, final int count, final Datatype type) throws MPIException {
        return run(() -> individual(false, Args.data(buf, count, type), count, type));
    }

    /** Writes at this rank's file pointer and moves it past what was written. */
    public Status write(final Object buf, final int count, final Datatype type) throws MPIException {
        return run(() -> individual(true, Args.data(buf, count, type), count, type));
    }

    /** {@link #read}, collective (two-phase if {@code romio_cb_read} is enable). */
    public Status readAll(final Object buf, final int count, final Datatype type) throws MPIException {
        return collective(() -> all(false, true, 0, buf, count, type));
    }

    /** {@link #write}, collective: when it returns every rank's data are in the file (two-phase if interleaved). */
    public Status writeAll(final Object buf, final int count, final Datatype type) throws MPIException {
        return collective(() -> all(true, true, 0, buf, count, type));
    }

    /** {@link #read} into a direct buffer: the pointer moves past the data asked for at once. */
    public Request iRead(final Buffer buf, final int count, final Datatype type) throws MPIException {
        return started(false, buf, count, type, () -> pointerMoved(false, count, type));
    }

    /** {@link #write} from a direct buffer: the pointer moves past the data at once. */
    public Request iWrite(final Buffer buf, final int count, final Datatype type) throws MPIException {
        return started(true, buf, count, type, () -> pointerMoved(true, count, type));
    }

    /** {@link #iRead}, collective in name. */
    public Request iReadAll(final Buffer buf, final int count, final Datatype type) throws MPIException {
        return iRead(buf, count, type);
    }

    /** {@link #iWrite}, collective in name. */
    public Request iWriteAll(final Buffer buf, final int count, final Datatype type) throws MPIException {
        return iWrite(buf, count, type);
    }

    /** Moves this rank's file pointer: {@link MPI#SEEK_SET}, {@link MPI#SEEK_CUR} or {@link MPI#SEEK_END}. */
    public void seek(final long offset, final int whence) throws MPIException {
        run(() -> {
            FileChecks.notSequential(amode, "seek");
            position = target(position, offset, whence);
            return null;
        });
    }

    /** This rank's file pointer, in etypes of the view. */
    public long getPosition() throws MPIException {
        live();
        return position;
    }

    /** The absolute byte in the file of view offset {@code offset} (etypes). */
    public long getByteOffset(final long offset) throws MPIException {
        live();
        return view.fileOffset(offset * view.etype.size);
    }

    // ------------------------------------------------------------------ the shared file pointer

    /** Reads at the shared file pointer, which moves past the data for every rank. */
    public Status readShared(final Object buf, final int count, final Datatype type) throws MPIException {
        return run(() -> viaShared(false, Args.data(buf, count, type), count, type));
    }

    /** Writes at the shared file pointer: concurrent calls from several ranks write disjoint regions. */
    public Status writeShared(final Object buf, final int count, final Datatype type) throws MPIException {
        return run(() -> viaShared(true, Args.data(buf, count, type), count, type));
    }

    /** {@link #readShared} into a direct buffer: the shared pointer moves at once. */
    public Request iReadShared(final Buffer buf, final int count, final Datatype type) throws MPIException {
        return started(false, buf, count, type, () -> shared.claim(FileChecks.etypes(amode, view, false, count, type)));
    }

    /** {@link #writeShared} from a direct buffer: the shared pointer moves at once. */
    public Request iWriteShared(final Buffer buf, final int count, final Datatype type) throws MPIException {
        return started(true, buf, count, type, () -> shared.claim(FileChecks.etypes(amode, view, true, count, type)));
    }

    /** Collective: the ranks read consecutive parts at the shared pointer, in rank order. */
    public Status readOrdered(final Object buf, final int count, final Datatype type) throws MPIException {
        return ordered(false, buf, count, type);
    }

    /** Collective: the ranks write consecutive parts at the shared pointer, in rank order. */
    public Status writeOrdered(final Object buf, final int count, final Datatype type) throws MPIException {
        return ordered(true, buf, count, type);
    }

    /** Moves the shared file pointer (collective: every rank passes the same arguments). */
    public void seekShared(final long offset, final int whence) throws MPIException {
        run(() -> {
            FileOpen.atRoot(comm, () -> {
                final long to = target(shared.get(), offset, whence);
                shared.set(to);
                return to;
            });
            return null;
        });
    }

    /** The shared file pointer, in etypes of the view. */
    public long getPositionShared() throws MPIException {
        final long[] p = new long[1];
        run(() -> {
            p[0] = shared.get();
            return null;
        });
        return p[0];
    }

    // ------------------------------------------------------------------ split collectives

    /** Begins {@link #readAtAll} (done here; {@link #readAtAllEnd} returns its status). */
    public void readAtAllBegin(final long offset, final Object buf, final int count, final Datatype type)
        throws MPIException {
        beginStatus = readAtAll(offset, buf, count, type);
    }

    /** Ends {@link #readAtAllBegin}. */
    public Status readAtAllEnd(final Object buf) throws MPIException {
        return end();
    }

    /** Begins {@link #writeAtAll} (done here; {@link #writeAtAllEnd} returns its status). */
    public void writeAtAllBegin(final long offset, final Object buf, final int count, final Datatype type)
        throws MPIException {
        beginStatus = writeAtAll(offset, buf, count, type);
    }

    /** Ends {@link #writeAtAllBegin}. */
    public Status writeAtAllEnd(final Object buf) throws MPIException {
        return end();
    }

    /** Begins {@link #readAll} (done here). */
    public void readAllBegin(final Object buf, final int count, final Datatype type) throws MPIException {
        beginStatus = readAll(buf, count, type);
    }

    /** Ends {@link #readAllBegin}. */
    public Status readAllEnd(final Object buf) throws MPIException {
        return end();
    }

    /** Begins {@link #writeAll} (done here). */
    public void writeAllBegin(final Object buf, final int count, final Datatype type) throws MPIException {
        beginStatus = writeAll(buf, count, type);
    }

    /** Ends {@link #writeAllBegin}. */
    public Status writeAllEnd(final Object buf) throws MPIException {
        return end();
    }

    /** Begins {@link #readOrdered} (done here). */
    public void readOrderedBegin(final Object buf, final int count, final Datatype type) throws MPIException {
        beginStatus = readOrdered(buf, count, type);
    }

    /** Ends {@link #readOrderedBegin}. */
    public Status readOrderedEnd(final Object buf) throws MPIException {
        return end();
    }

    /** Begins {@link #writeOrdered} (done here). */
    public void writeOrderedBegin(final Object buf, final int count, final Datatype type) throws MPIException {
        beginStatus = writeOrdered(buf, count, type);
    }

    /** Ends {@link #writeOrderedBegin}. */
    public Status writeOrderedEnd(final Object buf) throws MPIException {
        return end();
    }

    private Status end() throws MPIException {
        live();
        final Status s = beginStatus;
        if (s == null) {
            throw fail(new MPIException(MPI.ERR_REQUEST, "a split collective's end without its begin"));
        }
        beginStatus = null;
        return s;
    }

    // ------------------------------------------------------------------ consistency, errors

    /**
     * Atomic mode (collective): each access then holds an operating-system lock on the bytes it touches, so
     * concurrent overlapping accesses from different ranks do not interleave.
     */
    public void setAtomicity(final boolean atomicity) throws MPIException {
        run(() -> {
            comm.barrier();
            atomic = atomicity;
            return null;
        });
    }

    /** True in atomic mode. */
    public boolean getAtomicity() throws MPIException {
        live();
        return atomic;
    }

    /** Writes this rank's data through to the storage device, then meets the other ranks (collective). */
    public void sync() throws MPIException {
        collective(() -> {
            io.force();
            return null;
        });
    }

    /** Sets what errors on this file do (the default: {@link MPI#ERRORS_RETURN}). */
    public void setErrhandler(final Errhandler errhandler) throws MPIException {
        MPI.check();
        comm.errhandler = errhandler;
    }

    /** The file's error handler. */
    public Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return comm.errhandler;
    }

    /** Raises {@code errorCode} through the file's handler (the fatal one ends the job; ERRORS_RETURN returns). */
    public void callErrhandler(final int errorCode) throws MPIException {
        MPI.check();
        fail(new MPIException(errorCode, "error " + errorCode + " raised by callErrhandler"));
    }

    @Override
    public String toString() {
        return "File[" + path + ", amode " + amode + (closed ? ", closed" : "") + "]";
    }

    // ------------------------------------------------------------------ internal

    @FunctionalInterface
    private interface Call {
        Status run() throws MPIException;
    }

    private void live() throws MPIException {
        MPI.check();
        if (closed) {
            throw fail(new MPIException(MPI.ERR_FILE, "the file was closed"));
        }
    }

    private MPIException fail(final Exception e) {
        return comm.fail(e);
    }

    private Status run(final Call body) throws MPIException {
        try {
            live();
            return body.run();
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** Runs this rank's part, then meets the other ranks even when the part failed (no rank is left waiting). */
    private Status collective(final Call part) throws MPIException {
        Status st = null;
        Exception err = null;
        try {
            live();
            st = part.run();
        } catch (final MPIException | RuntimeException e) {
            err = e;
        }
        try {
            comm.barrier();
        } catch (final MPIException | RuntimeException e) {
            err = err == null ? e : err;
        }
        if (err != null) {
            throw fail(err);
        }
        return st;
    }

    @FunctionalInterface
    private interface Where {
        long offset() throws MPIException;
    }

    /**
     * Starts a non-blocking access at the offset (etypes) {@code where} gives once it checked the arguments and
     * moved a pointer, on this thread; the transfer runs on the file's I/O thread with the view of now.
     */
    private Request started(final boolean write, final Buffer buf, final int count, final Datatype type,
                            final Where where) throws MPIException {
        final Span s = Span.ofDirect(buf, "buffer");
        try {
            live();
            FileChecks.checked(s, count, type);
            FileData.check(view, type);
            final long offset = where.offset();
            final FileLayout v = view;
            final boolean locked = atomic;
            return async.start(comm, () -> independent(v, locked, write, offset, s, count, type));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** The individual pointer, checked and moved past {@code count} elements (a non-blocking access's start). */
    private long pointerMoved(final boolean write, final int count, final Datatype type) throws MPIException {
        FileChecks.notSequential(amode, "the individual file pointer");
        final long at = position;
        position += FileChecks.etypes(amode, view, write, count, type);
        return at;
    }

    private Status at(final boolean write, final long offset, final Span s, final int count, final Datatype type)
        throws MPIException {
        checkAt(write, offset, count, type);
        return status(transfer(write, offset, s, count, type));
    }

    private void checkAt(final boolean write, final long offset, final int count, final Datatype type)
        throws MPIException {
        FileChecks.notSequential(amode, "an explicit offset");
        FileChecks.etypes(amode, view, write, count, type);
        if (offset < 0) {
            throw new MPIException(MPI.ERR_ARG, "negative file offset " + offset);
        }
    }

    private Status individual(final boolean write, final Span s, final int count, final Datatype type)
        throws MPIException {
        FileChecks.notSequential(amode, "the individual file pointer");
        FileChecks.etypes(amode, view, write, count, type);
        final long moved = transfer(write, position, s, count, type);
        position += moved / view.etype.size;
        return status(moved);
    }

    /**
     * A collective access at explicit {@code offset}, or at the individual pointer ({@code pointer}). Every
     * rank takes part in the exchange of a two-phase access ({@link FileTwoPhase}), one whose own arguments are
     * wrong too (with no data), so that no rank is left waiting; that rank then throws its own error.
     */
    private Status all(final boolean write, final boolean pointer, final long offset, final Object buf,
                       final int count, final Datatype type) throws MPIException {
        MPIException mine = null;
        Span s = null;
        try {
            s = Args.data(buf, count, type);
            if (pointer) {
                FileChecks.notSequential(amode, "the individual file pointer");
                FileChecks.etypes(amode, view, write, count, type);
            } else {
                checkAt(write, offset, count, type);
            }
            FileData.check(view, type); // here, not in the exchange: a rank that cannot convert still takes part
        } catch (final MPIException e) {
            mine = e;
        }
        final long moved = collectiveTransfer(write, pointer ? position : offset, s, count, type, mine == null);
        if (mine != null) {
            throw mine;
        }
        if (pointer) {
            position += moved / view.etype.size;
        }
        return status(moved);
    }

    private Status viaShared(final boolean write, final Span s, final int count, final Datatype type)
        throws MPIException {
        final long start = shared.claim(FileChecks.etypes(amode, view, write, count, type));
        return status(transfer(write, start, s, count, type));
    }

    /** Each rank's part goes after the parts of the ranks before it, from the shared pointer on. */
    private Status ordered(final boolean write, final Object buf, final int count, final Datatype type)
        throws MPIException {
        return collective(() -> {
            MPIException mine = null;
            Span s = null;
            long n = 0;
            try {
                s = Args.data(buf, count, type);
                n = FileChecks.etypes(amode, view, write, count, type);
            } catch (final MPIException e) {
                mine = e;
            }
            final long[] all = new long[comm.size];
            comm.allGather(new long[] {n}, 1, MPI.LONG, all, 1, MPI.LONG);
            long before = 0;
            long total = 0;
            for (int r = 0; r < all.length; r++) {
                before += r < comm.rank ? all[r] : 0;
                total += all[r];
            }
            final long[] base = {-1};
            if (comm.rank == 0) {
                try {
                    base[0] = shared.claim(total);
                } catch (final MPIException e) {
                    mine = mine == null ? e : mine;
                }
            }
            comm.bcast(base, 1, MPI.LONG, 0);
            if (mine != null) {
                throw mine;
            }
            if (base[0] < 0) {
                throw new MPIException(MPI.ERR_OTHER, "rank 0 could not move the shared file pointer");
            }
            return status(transfer(write, base[0] + before, s, count, type));
        });
    }

    /** Moves {@code count} elements between memory and the view at {@code offset} etypes; bytes moved. */
    private long transfer(final boolean write, final long offset, final Span s, final int count,
                          final Datatype type) throws MPIException {
        return independent(view, atomic, write, offset, s, count, type);
    }

    /**
     * This rank's part of a collective {@link #transfer}: two-phase unless the ranks agree on independent I/O
     * (their parts do not interleave, a hint, atomic mode: the same on every rank). A rank whose own arguments
     * failed ({@code ok} false) takes part with no data and moves nothing.
     */
    private long collectiveTransfer(final boolean write, final long offset, final Span s, final int count,
                                    final Datatype type, final boolean ok) throws MPIException {
        if (atomic) {
            return ok ? transfer(write, offset, s, count, type) : 0;
        }
        final long at = offset * view.etype.size;
        if (!ok) {
            FileTwoPhase.transfer(write, comm, io, view, info, at, null, 0, false);
            return 0;
        }
        final FileData.Mover twoPhase = (packed, bytes) -> {
            final long moved = FileTwoPhase.transfer(write, comm, io, view, info, at, packed, bytes, true);
            return moved >= 0 ? moved
                : write ? io.write(view, at, packed, bytes, false) : io.read(view, at, packed, bytes, false);
        };
        return write ? data.write(view, s, count, type, twoPhase) : data.read(view, s, count, type, twoPhase);
    }

    /** An independent access through view {@code v} ({@code locked}: atomic mode's byte-range lock). */
    private long independent(final FileLayout v, final boolean locked, final boolean write, final long offset,
                             final Span s, final int count, final Datatype type) throws MPIException {
        final long at = offset * v.etype.size;
        return write ? data.write(v, at, s, count, type, locked) : data.read(v, at, s, count, type, locked);
    }

    /** A pointer moved as {@code whence} says, in etypes; never before the view's start. */
    private long target(final long current, final long offset, final int whence) throws MPIException {
        final long to = switch (whence) {
            case MPI.SEEK_SET -> offset;
            case MPI.SEEK_CUR -> current + offset;
            case MPI.SEEK_END -> view.dataBefore(io.size()) / view.etype.size + offset;
            default -> throw new MPIException(MPI.ERR_ARG, "unknown whence " + whence + " (MPI.SEEK_SET, SEEK_CUR "
                + "or SEEK_END)");
        };
        if (to < 0) {
            throw new MPIException(MPI.ERR_ARG, "a file pointer cannot move before the view's start (to " + to + ")");
        }
        return to;
    }

    private static Status status(final long bytes) {
        return new Status(MPI.ANY_SOURCE, MPI.ANY_TAG, MPI.SUCCESS, bytes, false);
    }
}
