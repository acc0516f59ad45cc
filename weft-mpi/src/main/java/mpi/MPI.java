package mpi;

import weft.job.JobWorker;
import weft.ucp.ThreadMode;
import weft.ucs.WeftException;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * The MPI environment (Open MPI's Java bindings API, package {@code mpi}): initialization, the predefined
 * communicators, datatypes, operations and constants, timers, and direct-buffer helpers.
 *
 * <pre>{@code
 * public static void main(String[] args) throws MPIException {
 *     MPI.Init(args);
 *     int rank = MPI.COMM_WORLD.getRank(), size = MPI.COMM_WORLD.getSize();
 *     int[] sum = {rank};
 *     MPI.COMM_WORLD.allReduce(sum, 1, MPI.INT, MPI.SUM);
 *     MPI.Finalize();
 * }
 * }</pre>
 *
 * Run it with {@code ./weft run -n 4 -cp . Main} (one JVM per rank), or alone (a job of one rank).
 */
public final class MPI {
    // ------------------------------------------------------------------ error classes (Open MPI's values)
    public static final int SUCCESS = 0;
    public static final int ERR_BUFFER = 1;
    public static final int ERR_COUNT = 2;
    public static final int ERR_TYPE = 3;
    public static final int ERR_TAG = 4;
    public static final int ERR_COMM = 5;
    public static final int ERR_RANK = 6;
    public static final int ERR_REQUEST = 7;
    public static final int ERR_ROOT = 8;
    public static final int ERR_GROUP = 9;
    public static final int ERR_OP = 10;
    public static final int ERR_TOPOLOGY = 11;
    public static final int ERR_DIMS = 12;
    public static final int ERR_ARG = 13;
    public static final int ERR_UNKNOWN = 14;
    public static final int ERR_TRUNCATE = 15;
    public static final int ERR_OTHER = 16;
    public static final int ERR_INTERN = 17;
    public static final int ERR_IN_STATUS = 18;
    public static final int ERR_PENDING = 19;
    public static final int ERR_ACCESS = 20;
    public static final int ERR_AMODE = 21;
    public static final int ERR_ASSERT = 22;
    public static final int ERR_BAD_FILE = 23;
    public static final int ERR_BASE = 24;
    public static final int ERR_CONVERSION = 25;
    public static final int ERR_DISP = 26;
    public static final int ERR_DUP_DATAREP = 27;
    public static final int ERR_FILE_EXISTS = 28;
    public static final int ERR_FILE_IN_USE = 29;
    public static final int ERR_FILE = 30;
    public static final int ERR_INFO_KEY = 31;
    public static final int ERR_INFO_NOKEY = 32;
    public static final int ERR_INFO_VALUE = 33;
    public static final int ERR_INFO = 34;
    public static final int ERR_IO = 35;
    public static final int ERR_KEYVAL = 36;
    public static final int ERR_LOCKTYPE = 37;
    public static final int ERR_NAME = 38;
    public static final int ERR_NO_MEM = 39;
    public static final int ERR_NOT_SAME = 40;
    public static final int ERR_NO_SPACE = 41;
    public static final int ERR_NO_SUCH_FILE = 42;
    public static final int ERR_PORT = 43;
    public static final int ERR_QUOTA = 44;
    public static final int ERR_READ_ONLY = 45;
    public static final int ERR_RMA_CONFLICT = 46;
    public static final int ERR_RMA_SYNC = 47;
    public static final int ERR_SERVICE = 48;
    public static final int ERR_SIZE = 49;
    public static final int ERR_SPAWN = 50;
    public static final int ERR_UNSUPPORTED_DATAREP = 51;
    public static final int ERR_UNSUPPORTED_OPERATION = 52;
    public static final int ERR_WIN = 53;
    /** Target memory is not in the window (a dynamic window: not attached). Open MPI's value; not in its Java API. */
    public static final int ERR_RMA_RANGE = 68;
    /** Memory cannot be attached to a dynamic window. Open MPI's value; not in its Java API. */
    public static final int ERR_RMA_ATTACH = 69;
    /** The window's flavor does not allow the call (attach to a window with memory). Open MPI's value. */
    public static final int ERR_RMA_FLAVOR = 70;
    /** Memory cannot be shared. Open MPI's value; not in its Java API. */
    public static final int ERR_RMA_SHARED = 71;
    public static final int ERR_SYSRESOURCE = -2;
    public static final int ERR_LASTCODE = 92;

    // ------------------------------------------------------------------ ranks, tags, comparisons, threads
    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;
    public static final int PROC_NULL = -2;
    public static final int ROOT = -4;
    public static final int UNDEFINED = -32766;
    public static final int IDENT = 0;
    public static final int CONGRUENT = 1;
    public static final int SIMILAR = 2;
    public static final int UNEQUAL = 3;
    public static final int THREAD_SINGLE = 0;
    public static final int THREAD_FUNNELED = 1;
    public static final int THREAD_SERIALIZED = 2;
    public static final int THREAD_MULTIPLE = 3;
    public static final int GRAPH = 1;
    public static final int CART = 2;
    public static final int DIST_GRAPH = 3;

    // ------------------------------------------------------------------ predefined attribute keys
    public static final int TAG_UB = 0;
    public static final int HOST = 1;
    public static final int IO = 2;
    public static final int WTIME_IS_GLOBAL = 3;
    public static final int APPNUM = 4;
    public static final int LASTUSEDCODE = 5;
    public static final int UNIVERSE_SIZE = 6;
    public static final int WIN_BASE = 7;
    public static final int WIN_SIZE = 8;
    public static final int WIN_DISP_UNIT = 9;
    public static final int KEYVAL_INVALID = -1;

    // ------------------------------------------------------------------ limits and modes
    public static final int VERSION = 3;
    public static final int SUBVERSION = 1;
    public static final int BSEND_OVERHEAD = 128;
    public static final int MAX_OBJECT_NAME = 64;
    public static final int MAX_PORT_NAME = 1024;
    public static final int MAX_DATAREP_STRING = 128;
    public static final int MAX_INFO_KEY = 36;
    public static final int MAX_INFO_VAL = 256;
    public static final int ORDER_C = 0;
    public static final int ORDER_FORTRAN = 1;
    public static final int DISTRIBUTE_BLOCK = 0;
    public static final int DISTRIBUTE_CYCLIC = 1;
    public static final int DISTRIBUTE_NONE = 2;
    public static final int DISTRIBUTE_DFLT_DARG = -1;
    public static final int MODE_CREATE = 1;
    public static final int MODE_RDONLY = 2;
    public static final int MODE_WRONLY = 4;
    public static final int MODE_RDWR = 8;
    public static final int MODE_DELETE_ON_CLOSE = 16;
    public static final int MODE_UNIQUE_OPEN = 32;
    public static final int MODE_EXCL = 64;
    public static final int MODE_APPEND = 128;
    public static final int MODE_SEQUENTIAL = 256;
    public static final int DISPLACEMENT_CURRENT = -54278278;
    public static final int SEEK_SET = 600;
    public static final int SEEK_CUR = 602;
    public static final int SEEK_END = 604;
    public static final int MODE_NOCHECK = 1;
    public static final int MODE_NOSTORE = 2;
    public static final int MODE_NOPUT = 4;
    public static final int MODE_NOPRECEDE = 8;
    public static final int MODE_NOSUCCEED = 16;
    public static final int LOCK_EXCLUSIVE = 1;
    public static final int LOCK_SHARED = 2;

    // ------------------------------------------------------------------ datatypes
    public static final Datatype DATATYPE_NULL = Datatype.primitive(Datatype.NULL, 0, "MPI_DATATYPE_NULL");
    public static final Datatype BYTE = Datatype.primitive(Datatype.BYTE, 1, "MPI_BYTE");
    public static final Datatype CHAR = Datatype.primitive(Datatype.CHAR, 2, "MPI_CHAR");
    public static final Datatype SHORT = Datatype.primitive(Datatype.SHORT, 2, "MPI_SHORT");
    public static final Datatype BOOLEAN = Datatype.primitive(Datatype.BOOLEAN, 1, "MPI_BOOLEAN");
    public static final Datatype INT = Datatype.primitive(Datatype.INT, 4, "MPI_INT");
    public static final Datatype LONG = Datatype.primitive(Datatype.LONG, 8, "MPI_LONG");
    public static final Datatype FLOAT = Datatype.primitive(Datatype.FLOAT, 4, "MPI_FLOAT");
    public static final Datatype DOUBLE = Datatype.primitive(Datatype.DOUBLE, 8, "MPI_DOUBLE");
    public static final Datatype PACKED = Datatype.primitive(Datatype.PACKED, 1, "MPI_PACKED");
    /** Two ints, a value and an index (MINLOC/MAXLOC); base type BYTE. */
    public static final Datatype INT2 = Datatype.pair(Datatype.INT2, 4, "MPI_2INT");
    /** A short value and an int index; base type BYTE. */
    public static final Datatype SHORT_INT = Datatype.pair(Datatype.SHORT_INT, 2, "MPI_SHORT_INT");
    /** A long value and an int index; base type BYTE. */
    public static final Datatype LONG_INT = Datatype.pair(Datatype.LONG_INT, 8, "MPI_LONG_INT");
    /** A float value and an int index; base type BYTE. */
    public static final Datatype FLOAT_INT = Datatype.pair(Datatype.FLOAT_INT, 4, "MPI_FLOAT_INT");
    /** A double value and an int index; base type BYTE. */
    public static final Datatype DOUBLE_INT = Datatype.pair(Datatype.DOUBLE_INT, 8, "MPI_DOUBLE_INT");
    /** Two floats (real, imaginary); base type FLOAT. */
    public static final Datatype FLOAT_COMPLEX = Datatype.complex(Datatype.FLOAT_COMPLEX, FLOAT, "MPI_FLOAT_COMPLEX");
    /** Two doubles (real, imaginary); base type DOUBLE. */
    public static final Datatype DOUBLE_COMPLEX = Datatype.complex(Datatype.DOUBLE_COMPLEX, DOUBLE,
        "MPI_DOUBLE_COMPLEX");

    /** The value-index pair struct of {@link #INT2}. */
    public static final Int2 int2 = new Int2();
    /** The value-index pair struct of {@link #SHORT_INT}. */
    public static final ShortInt shortInt = new ShortInt();
    /** The value-index pair struct of {@link #LONG_INT}. */
    public static final LongInt longInt = new LongInt();
    /** The value-index pair struct of {@link #FLOAT_INT}. */
    public static final FloatInt floatInt = new FloatInt();
    /** The value-index pair struct of {@link #DOUBLE_INT}. */
    public static final DoubleInt doubleInt = new DoubleInt();

    // ------------------------------------------------------------------ operations
    public static final Op MAX = new Op(Reductions.MAX);
    public static final Op MIN = new Op(Reductions.MIN);
    public static final Op SUM = new Op(Reductions.SUM);
    public static final Op PROD = new Op(Reductions.PROD);
    public static final Op LAND = new Op(Reductions.LAND);
    public static final Op BAND = new Op(Reductions.BAND);
    public static final Op LOR = new Op(Reductions.LOR);
    public static final Op BOR = new Op(Reductions.BOR);
    public static final Op LXOR = new Op(Reductions.LXOR);
    public static final Op BXOR = new Op(Reductions.BXOR);
    /** The smallest value and its index, on {@link #INT2}, {@link #SHORT_INT}, ... {@link #DOUBLE_INT}. */
    public static final Op MINLOC = new Op(Reductions.MINLOC);
    /** The largest value and its index; see {@link #MINLOC}. */
    public static final Op MAXLOC = new Op(Reductions.MAXLOC);
    public static final Op REPLACE = new Op(Reductions.REPLACE);
    public static final Op NO_OP = new Op(Reductions.NO_OP);

    // ------------------------------------------------------------------ handlers, objects
    /** The default: an error ends the job. */
    public static final Errhandler ERRORS_ARE_FATAL = new Errhandler(true, "MPI_ERRORS_ARE_FATAL");
    /** Errors are thrown to the caller as {@link MPIException}s. */
    public static final Errhandler ERRORS_RETURN = new Errhandler(false, "MPI_ERRORS_RETURN");
    /** As {@link #ERRORS_ARE_FATAL}. */
    public static final Errhandler ERRORS_ABORT = new Errhandler(true, "MPI_ERRORS_ABORT");
    public static final Group GROUP_EMPTY = new Group(new int[0]);
    public static final Info INFO_NULL = Info.predefined();
    public static final Info INFO_ENV = Info.predefined();
    public static final Request REQUEST_NULL = Request.nullRequest();

    /** All ranks of the job. */
    public static final Intracomm COMM_WORLD = new Intracomm();
    /** This rank alone. */
    public static final Intracomm COMM_SELF = new Intracomm();

    private static volatile Session session;
    private static volatile boolean initialized;
    private static volatile boolean finalized;

    private MPI() {
    }

    // ------------------------------------------------------------------ init and finalize

    /**
     * Starts MPI: joins the job (or a job of one rank when started without a launcher) and sets up
     * {@link #COMM_WORLD} and {@link #COMM_SELF}. Makes no connection: a rank connects to another the first
     * time it addresses it.
     *
     * @return {@code args}
     * @throws MPIException if MPI was already initialized or the job cannot be joined
     */
    public static String[] Init(final String[] args) throws MPIException {
        start(THREAD_SINGLE);
        return args;
    }

    /**
     * {@link #Init} with a thread level: {@link #THREAD_MULTIPLE} lets any threads call MPI at once; the
     * other levels let one thread at a time.
     *
     * @return the level provided: the level asked for, except THREAD_SERIALIZED for THREAD_MULTIPLE when
     *         another layer of this process (OpenSHMEM) made the shared worker single-threaded first
     */
    public static int InitThread(final String[] args, final int required) throws MPIException {
        if (required < THREAD_SINGLE || required > THREAD_MULTIPLE) {
            throw new MPIException(ERR_ARG, "unknown thread level " + required);
        }
        return start(required);
    }

    private static synchronized int start(final int level) throws MPIException {
        if (initialized) {
            throw new MPIException(ERR_OTHER, finalized ? "MPI was finalized and cannot be initialized again"
                : "MPI is already initialized");
        }
        final boolean activeMessages;
        try {
            activeMessages = "am".equals(weft.ucs.config.Config.global().get(weft.mpi.MpiConfig.TRANSPORT));
        } catch (final WeftException e) {
            throw new MPIException(ERR_ARG, "MPI cannot start: " + e.getMessage(), e);
        }
        final JobWorker job;
        try {
            job = JobWorker.acquire(level == THREAD_MULTIPLE ? ThreadMode.MULTI : ThreadMode.SERIALIZED);
        } catch (final WeftException e) {
            throw new MPIException(ERR_OTHER, "MPI cannot start: " + e.getMessage(), e);
        }
        if (job.size() > Tags.MAX_RANKS) {
            job.release();
            throw new MPIException(ERR_OTHER, "a job of " + job.size() + " ranks is larger than the " + Tags.MAX_RANKS
                + " this MPI addresses");
        }
        // a worker made earlier by another layer keeps its thread mode: MULTIPLE needs a MULTI worker
        final int provided = level == THREAD_MULTIPLE && job.worker().threadMode() != ThreadMode.MULTI
            ? THREAD_SERIALIZED : level;
        final Session s = new Session(job, provided, 4, activeMessages);
        session = s;
        final int[] all = new int[job.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        COMM_WORLD.setup(s, new Group(all), 0, "MPI_COMM_WORLD");
        COMM_SELF.setup(s, new Group(new int[] {job.rank()}), 2, "MPI_COMM_SELF");
        initialized = true;
        return provided;
    }

    /**
     * Ends MPI: waits for buffered sends, makes sure every message this rank sent has arrived, meets every
     * other rank, and releases the transports (those another layer, such as OpenSHMEM, still uses stay).
     */
    public static void Finalize() throws MPIException {
        check();
        final Session s = session;
        try {
            s.buffered.drain();
            s.worker.flush().await();
            fenceProgressing(s); // out of band: no message of ours is in flight when the worker closes
        } catch (final WeftException e) {
            throw new MPIException(ERR_OTHER, "MPI_Finalize failed: " + e.getMessage(), e);
        } finally {
            finalized = true;
            if (s.am != null) {
                s.am.close();
            }
            s.job.release();
        }
    }

    /**
     * The job's out-of-band barrier, on a thread of its own while this one keeps progressing the worker (as Open
     * MPI's finalize progresses while its PMIx fence runs). A rank whose flush is done must still answer its
     * peers until they are done too: over tcp a peer's flush waits for this rank's acknowledgements, and a
     * message a peer sent over a connection still being made leaves only when both sides progress; a rank that
     * sat in the barrier without progressing held the others in Finalize until the bootstrap timeout (a 2-rank
     * allreduce-and-finalize over tcp, in most runs). The barrier's own timeout bounds the wait.
     */
    private static void fenceProgressing(final Session s) {
        final java.util.concurrent.atomic.AtomicReference<RuntimeException> failed =
            new java.util.concurrent.atomic.AtomicReference<>();
        final Thread fence = Thread.ofPlatform().daemon().name("weft-mpi-finalize-fence").start(() -> {
            try {
                s.job.runtime().barrier();
            } catch (final RuntimeException e) {
                failed.set(e);
            }
        });
        for (int idle = 0; fence.isAlive(); ) {
            idle = Progress.step(s.worker, idle);
            if (idle > FENCE_SPIN_STEPS) {
                java.util.concurrent.locks.LockSupport.parkNanos(FENCE_PARK_NS); // the fence thread may need this CPU
            }
        }
        // isAlive() returning false orders the fence thread's last action (a failure set) before what follows
        if (failed.get() != null) {
            throw failed.get();
        }
    }

    /** Idle progress steps in {@link #fenceProgressing} before it parks between steps. */
    private static final int FENCE_SPIN_STEPS = 64;
    /** How long {@link #fenceProgressing} parks between idle steps. */
    private static final long FENCE_PARK_NS = 50_000;

    /** True once {@link #Init} succeeded (even after {@link #Finalize}). */
    public static boolean isInitialized() throws MPIException {
        return initialized;
    }

    /** True once {@link #Finalize} was called. */
    public static boolean isFinalized() throws MPIException {
        return finalized;
    }

    /** The thread level given at initialization. */
    public static int queryThread() throws MPIException {
        check();
        return session.threadLevel;
    }

    /** True on the thread that initialized MPI. */
    public static boolean isThreadMain() throws MPIException {
        check();
        return Thread.currentThread() == session.mainThread;
    }

    // ------------------------------------------------------------------ environment

    /** Seconds since an arbitrary moment, from a monotonic clock. */
    public static double wtime() throws MPIException {
        check();
        return System.nanoTime() / 1e9;
    }

    /** The resolution of {@link #wtime}: one nanosecond. */
    public static double wtick() throws MPIException {
        check();
        return 1e-9;
    }

    /** This node's host name. */
    public static String getProcessorName() throws MPIException {
        check();
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (final java.net.UnknownHostException e) {
            final String env = System.getenv("HOSTNAME");
            return env != null ? env : "localhost";
        }
    }

    /** The MPI standard version implemented. */
    public static Version getVersion() {
        return new Version(VERSION, SUBVERSION);
    }

    /** A description of this library. */
    public static String getLibVersion() {
        return "Weft MPI (pure Java, Open MPI Java bindings API) over weft.ucp";
    }

    /** Profiling control: nothing to do. */
    public static void pControl(final int level, final Object obj) {
        // no profiling layer
    }

    /** Attaches the buffer that {@code bSend} copies its messages against. */
    public static void attachBuffer(final byte[] buffer) throws MPIException {
        check();
        session.buffered.attach(buffer);
    }

    /** Waits for the buffered sends, detaches the buffer and returns it. */
    public static byte[] detachBuffer() throws MPIException {
        check();
        return session.buffered.detach();
    }

    // ------------------------------------------------------------------ direct buffers

    /** A direct byte buffer of {@code capacity} bytes in native byte order. */
    public static ByteBuffer newByteBuffer(final int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
    }

    /** A direct char buffer of {@code capacity} chars. */
    public static CharBuffer newCharBuffer(final int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 2)).asCharBuffer();
    }

    /** A direct short buffer of {@code capacity} shorts. */
    public static ShortBuffer newShortBuffer(final int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 2)).asShortBuffer();
    }

    /** A direct int buffer of {@code capacity} ints. */
    public static IntBuffer newIntBuffer(final int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 4)).asIntBuffer();
    }

    /** A direct long buffer of {@code capacity} longs. */
    public static LongBuffer newLongBuffer(final int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 8)).asLongBuffer();
    }

    /** A direct float buffer of {@code capacity} floats. */
    public static FloatBuffer newFloatBuffer(final int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 4)).asFloatBuffer();
    }

    /** A direct double buffer of {@code capacity} doubles. */
    public static DoubleBuffer newDoubleBuffer(final int capacity) {
        return newByteBuffer(Math.multiplyExact(capacity, 8)).asDoubleBuffer();
    }

    /**
     * The absolute address of element 0 of a direct buffer (its position ignored, as everywhere in these
     * bindings; use {@link #slice} for an offset), as MPI_Get_address gives it: the target displacement
     * that names this memory in a dynamic window ({@link Win#attach}). Weft's addition: Open MPI's Java
     * bindings have no call that names an address.
     */
    public static long getAddress(final Buffer buf) throws MPIException {
        check();
        if (buf == null || !buf.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        return java.lang.foreign.MemorySegment.ofBuffer(buf.duplicate().clear()).address();
    }

    // ------------------------------------------------------------------ slices: buffers starting at an offset

    /** The part of {@code buf} from element {@code offset} on (a buffer's element 0 is where MPI starts). */
    public static ByteBuffer slice(final ByteBuffer buf, final int offset) {
        return buf.duplicate().position(offset).slice().order(buf.order());
    }

    /** See {@link #slice(ByteBuffer, int)}. */
    public static CharBuffer slice(final CharBuffer buf, final int offset) {
        return buf.duplicate().position(offset).slice();
    }

    /** See {@link #slice(ByteBuffer, int)}. */
    public static ShortBuffer slice(final ShortBuffer buf, final int offset) {
        return buf.duplicate().position(offset).slice();
    }

    /** See {@link #slice(ByteBuffer, int)}. */
    public static IntBuffer slice(final IntBuffer buf, final int offset) {
        return buf.duplicate().position(offset).slice();
    }

    /** See {@link #slice(ByteBuffer, int)}. */
    public static LongBuffer slice(final LongBuffer buf, final int offset) {
        return buf.duplicate().position(offset).slice();
    }

    /** See {@link #slice(ByteBuffer, int)}. */
    public static FloatBuffer slice(final FloatBuffer buf, final int offset) {
        return buf.duplicate().position(offset).slice();
    }

    /** See {@link #slice(ByteBuffer, int)}. */
    public static DoubleBuffer slice(final DoubleBuffer buf, final int offset) {
        return buf.duplicate().position(offset).slice();
    }

    /** A buffer over {@code buf} from element {@code offset} on. */
    public static ByteBuffer slice(final byte[] buf, final int offset) {
        return ByteBuffer.wrap(buf, offset, buf.length - offset).slice().order(ByteOrder.nativeOrder());
    }

    /** See {@link #slice(byte[], int)}. */
    public static CharBuffer slice(final char[] buf, final int offset) {
        return CharBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** See {@link #slice(byte[], int)}. */
    public static ShortBuffer slice(final short[] buf, final int offset) {
        return ShortBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** See {@link #slice(byte[], int)}. */
    public static IntBuffer slice(final int[] buf, final int offset) {
        return IntBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** See {@link #slice(byte[], int)}. */
    public static LongBuffer slice(final long[] buf, final int offset) {
        return LongBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** See {@link #slice(byte[], int)}. */
    public static FloatBuffer slice(final float[] buf, final int offset) {
        return FloatBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** See {@link #slice(byte[], int)}. */
    public static DoubleBuffer slice(final double[] buf, final int offset) {
        return DoubleBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    // ------------------------------------------------------------------ internal

    /** Throws unless MPI is initialized and not finalized. */
    static void check() throws MPIException {
        if (!initialized) {
            throw new MPIException(ERR_OTHER, "MPI is not initialized (call MPI.Init first)");
        }
        if (finalized) {
            throw new MPIException(ERR_OTHER, "MPI is finalized");
        }
    }

    static Session session() {
        return session;
    }

    /** This process's rank in the job, or -1 before initialization. */
    static int jobRank() {
        final Session s = session;
        return s == null ? -1 : s.job.rank();
    }

    static String opName(final int code) {
        final String[] names = {"?", "MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR",
            "MINLOC", "MAXLOC", "REPLACE", "NO_OP"};
        return code >= 0 && code < names.length ? "MPI." + names[code] : "op " + code;
    }
}
