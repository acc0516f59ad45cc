package weft.runtime;

import weft.ucs.BlockedProgress;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The bootstrap of a PE started by a PMIx resource manager (Open MPI's {@code mpirun}/{@code prterun},
 * Slurm's {@code srun --mpi=pmix}): libpmix through FFM. Weft's keys are stored under a
 * {@code weft.} prefix so they cannot collide with the resource manager's or MPI's own.
 *
 * <p>The PMIx structures used, as laid out by pmix_common.h of PMIx 2 to 5 (libpmix.so.2) on
 * LP64 Linux:
 * <pre>
 *   pmix_proc_t   (260 B)   0: char nspace[256]      256: uint32 rank
 *   pmix_value_t            0: uint16 type             8: union data (8-byte aligned)
 *                              byte object: 8: char *bytes, 16: size_t size
 *   pmix_info_t             0: char key[512]         512: uint32 flags    520: pmix_value_t value
 * </pre>
 * PMIx calls that may wait for other processes (fence, get) run on a helper thread so that the
 * caller can give up at {@code WEFT_BOOTSTRAP_TIMEOUT} with an error instead of hanging.
 */
@SuppressWarnings("restricted") // the class is an FFM binding of libpmix: downcalls and the views of its results
final class PmixBootstrap implements Bootstrap {
    private static final long PROC_SIZE = 260;
    private static final long NSPACE_BYTES = 256;
    private static final long RANK_OFFSET = 256;
    private static final long VALUE_SIZE = 64;  // >= sizeof(pmix_value_t) in every version (24..32)
    private static final long VALUE_DATA = 8;
    private static final long INFO_SIZE = 600;  // >= sizeof(pmix_info_t)
    private static final long INFO_FLAGS = 512;
    private static final long INFO_VALUE = 520;
    private static final int RANK_WILDCARD = 0xFFFF_FFFE;
    private static final byte PMIX_GLOBAL = 3;
    private static final short PMIX_BOOL = 1;
    private static final short PMIX_STRING = 3;
    private static final short PMIX_SIZE = 4;
    private static final short PMIX_INT = 6;
    private static final short PMIX_INT8 = 7;
    private static final short PMIX_INT16 = 8;
    private static final short PMIX_INT32 = 9;
    private static final short PMIX_INT64 = 10;
    private static final short PMIX_UINT = 11;
    private static final short PMIX_UINT8 = 12;
    private static final short PMIX_UINT16 = 13;
    private static final short PMIX_UINT32 = 14;
    private static final short PMIX_UINT64 = 15;
    private static final short PMIX_BYTE_OBJECT = 27;
    private static final short PMIX_PROC_RANK = 40;
    private static final String KEY_PREFIX = "weft.";
    private static final int MAX_KEY = 511;
    private static final int ABORT_WAIT_S = 10;
    /** What Slurm's PMIx server answers a fence some of whose processes died (PMIX_ERR_PARTIAL_SUCCESS). */
    private static final int PMIX_ERR_PARTIAL_SUCCESS = -52;

    private final Lib lib;
    private final long timeoutNs;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment self;
    private final MemorySegment wildcard;
    private final ExecutorService waiter = Executors.newSingleThreadExecutor(r ->
        Thread.ofPlatform().daemon().name("weft-pmix").unstarted(r));
    private final JobLayout layout;
    /** This node's PEs outnumber its CPUs (see {@link ProgressBackoff}); false until the layout is known. */
    private boolean crowded;
    private boolean closed;
    /** A PMIx call timed out and may still run: its memory is never freed and PMIx never finalized. */
    private volatile boolean stuck;
    /** This PE called PMIx_Abort: nothing else is called, not even PMIx_Finalize. */
    private volatile boolean aborted;
    /** A blocking PMIx call is under way (close from a shutdown hook must not finalize under it). */
    private volatile boolean calling;

    private PmixBootstrap(final Lib lib, final long timeoutNs, final Function<String, String> env) {
        this.lib = lib;
        this.timeoutNs = timeoutNs;
        self = arena.allocate(PROC_SIZE, 8);
        final int rc = (int) waitFor("PMIx_Init", () -> (int) lib.init.invokeExact(self, MemorySegment.NULL, 0L));
        if (rc != 0) {
            closeUnlessStuck(arena);
            waiter.shutdownNow();
            throw error("PMIx_Init", rc, " (is this process started by a PMIx launcher such as mpirun or "
                + "srun --mpi=pmix?)");
        }
        try {
            final String nspace = self.getString(0);
            final int rank = self.get(JAVA_INT, RANK_OFFSET);
            wildcard = arena.allocate(PROC_SIZE, 8);
            wildcard.copyFrom(self);
            wildcard.set(JAVA_INT, RANK_OFFSET, RANK_WILDCARD);
            final int size = (int) number(wildcard, "pmix.job.size", -1);
            // Older servers may not know the local keys: the MPI launchers' variables are the fallback.
            layout = new JobLayout(rank, size,
                (int) number(self, "pmix.lrank", envInt(env, "OMPI_COMM_WORLD_LOCAL_RANK", 0)),
                (int) number(wildcard, "pmix.local.size", envInt(env, "OMPI_COMM_WORLD_LOCAL_SIZE", 1)),
                (int) number(self, "pmix.nodeid", 0), nspace); // no launcher variable tells the node index
            crowded = weft.ucs.Cpus.oversubscribed(layout.localSize());
        } catch (final RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Loads libpmix and initializes PMIx as a client. */
    static PmixBootstrap open(final String libraryPath, final long timeoutNs, final Function<String, String> env) {
        return new PmixBootstrap(Lib.load(libraryPath), timeoutNs, env);
    }

    private static long envInt(final Function<String, String> env, final String name, final long dflt) {
        final String v = env.apply(name);
        if (v == null) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (final NumberFormatException e) {
            return dflt;
        }
    }

    /** A numeric job or process attribute, or {@code dflt} when the server does not have it. */
    private long number(final MemorySegment proc, final String key, final long dflt) {
        final Arena a = Arena.ofShared(); // the call runs on the waiter thread
        try {
            final MemorySegment valp = a.allocate(ADDRESS);
            final MemorySegment k = a.allocateFrom(key);
            final int rc = (int) waitFor("PMIx_Get(" + key + ")", () ->
                (int) lib.get.invokeExact(proc, k, MemorySegment.NULL, 0L, valp));
            if (rc != 0) {
                if (dflt < 0) {
                    throw error("PMIx_Get(" + key + ")", rc, "");
                }
                return dflt;
            }
            final MemorySegment v = valp.get(ADDRESS, 0).reinterpret(VALUE_SIZE);
            try {
                final short type = v.get(JAVA_SHORT, 0);
                return switch (type) {
                    case PMIX_UINT8, PMIX_INT8, PMIX_BOOL -> Byte.toUnsignedLong(v.get(JAVA_BYTE, VALUE_DATA));
                    case PMIX_UINT16, PMIX_INT16 -> Short.toUnsignedLong(v.get(JAVA_SHORT, VALUE_DATA));
                    case PMIX_UINT32, PMIX_INT32, PMIX_UINT, PMIX_INT, PMIX_PROC_RANK ->
                        Integer.toUnsignedLong(v.get(JAVA_INT, VALUE_DATA));
                    case PMIX_UINT64, PMIX_INT64, PMIX_SIZE -> v.get(JAVA_LONG, VALUE_DATA);
                    default -> throw new WeftException(Status.IO_ERROR, "PMIx value of " + key
                        + " has type " + type + ", not a number");
                };
            } finally {
                release(v);
            }
        } finally {
            closeUnlessStuck(a);
        }
    }

    /**
     * Frees the memory of a call unless the call is still running in libpmix (it timed out): then
     * the memory stays allocated, because native code may still write it.
     */
    private void closeUnlessStuck(final Arena a) {
        if (!stuck) {
            a.close();
        }
    }

    /** Frees a value PMIx_Get allocated (what PMIX_VALUE_RELEASE does for the types used here). */
    private void release(final MemorySegment v) {
        final short type = v.get(JAVA_SHORT, 0);
        if (type == PMIX_BYTE_OBJECT || type == PMIX_STRING) {
            final MemorySegment p = v.get(ADDRESS, VALUE_DATA);
            if (!p.equals(MemorySegment.NULL)) {
                lib.free(p);
            }
        }
        lib.free(v);
    }

    @FunctionalInterface
    private interface NativeCall {
        int call() throws Throwable;
    }

    /** Runs a PMIx call that may block on other processes, giving up at the deadline. */
    private long waitFor(final String what, final NativeCall call) {
        final Future<Integer> f = waiter.submit(() -> {
            try {
                return call.call();
            } catch (final Throwable t) {
                throw new IllegalStateException(t);
            }
        });
        calling = true;
        try {
            return awaitProgressing(f, timeoutNs, crowded);
        } catch (final TimeoutException e) {
            stuck = true; // the call goes on in libpmix: its memory must outlive this method
            throw new WeftException(Status.TIMED_OUT, what + " did not complete within "
                + TimeUnit.NANOSECONDS.toSeconds(timeoutNs) + " s (WEFT_BOOTSTRAP_TIMEOUT): a PE may have died "
                + "or never started", e);
        } catch (final ExecutionException e) {
            throw new WeftException(Status.IO_ERROR, what + " failed: " + e.getCause(), e.getCause());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WeftException(Status.CANCELED, what + " interrupted", e);
        } finally {
            calling = false;
        }
    }

    /**
     * The call's result, waited for on this thread while its workers progress ({@link BlockedProgress}): a
     * peer may need them to finish what it does before it reaches the same fence. Polls start at 20 us and
     * back off while nothing happens ({@link ProgressBackoff}).
     */
    private static int awaitProgressing(final Future<Integer> f, final long timeoutNs, final boolean crowded)
        throws TimeoutException, ExecutionException, InterruptedException {
        if (!BlockedProgress.any()) {
            return f.get(timeoutNs, TimeUnit.NANOSECONDS);
        }
        final long deadline = System.nanoTime() + timeoutNs;
        final ProgressBackoff backoff = new ProgressBackoff(crowded);
        while (!f.isDone()) {
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException();
            }
            if (BlockedProgress.run() > 0) {
                backoff.reset();
                continue;
            }
            LockSupport.parkNanos(backoff.next(left));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        return f.get();
    }

    private WeftException error(final String what, final int rc, final String hint) {
        String text;
        try {
            text = ((MemorySegment) lib.errorString.invokeExact(rc)).reinterpret(256).getString(0);
        } catch (final Throwable t) {
            text = "status " + rc;
        }
        return new WeftException(Status.IO_ERROR, what + " failed: " + text + " (" + rc + ")" + hint);
    }

    private static String fullKey(final String key) {
        final String k = KEY_PREFIX + key;
        if (k.getBytes(StandardCharsets.UTF_8).length > MAX_KEY) {
            throw new WeftException(Status.INVALID_PARAM, "bootstrap key too long for PMIx: " + key);
        }
        return k;
    }

    @Override
    public String name() {
        return "pmix";
    }

    @Override
    public JobLayout layout() {
        return layout;
    }

    @Override
    public void put(final String key, final byte[] value) {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment bytes = a.allocate(Math.max(1, value.length));
            MemorySegment.copy(value, 0, bytes, JAVA_BYTE, 0, value.length);
            final MemorySegment v = a.allocate(VALUE_SIZE, 8);
            v.set(JAVA_SHORT, 0, PMIX_BYTE_OBJECT);
            v.set(ADDRESS, VALUE_DATA, bytes);
            v.set(JAVA_LONG, VALUE_DATA + 8, value.length);
            final MemorySegment k = a.allocateFrom(fullKey(key));
            final int rc;
            try {
                rc = (int) lib.put.invokeExact(PMIX_GLOBAL, k, v); // PMIx copies the value
            } catch (final Throwable t) {
                throw new WeftException(Status.IO_ERROR, "PMIx_Put failed: " + t, t);
            }
            if (rc != 0) {
                throw error("PMIx_Put(" + key + ")", rc, "");
            }
        }
    }

    @Override
    public void commit() {
        checkOpen();
        final int rc;
        try {
            rc = (int) lib.commit.invokeExact();
        } catch (final Throwable t) {
            throw new WeftException(Status.IO_ERROR, "PMIx_Commit failed: " + t, t);
        }
        if (rc != 0) {
            throw error("PMIx_Commit", rc, "");
        }
    }

    @Override
    public void fence() {
        checkOpen();
        final Arena a = Arena.ofShared();
        try {
            // One info: PMIX_COLLECT_DATA = true, so that committed values travel with the fence.
            final MemorySegment info = a.allocate(INFO_SIZE, 8);
            info.setString(0, "pmix.collect");
            info.set(JAVA_INT, INFO_FLAGS, 0);
            info.set(JAVA_SHORT, INFO_VALUE, PMIX_BOOL);
            info.set(JAVA_BYTE, INFO_VALUE + VALUE_DATA, (byte) 1);
            final int rc = (int) waitFor("PMIx_Fence", () ->
                (int) lib.fence.invokeExact(wildcard, 1L, info, 1L));
            if (rc != 0) {
                throw error("PMIx_Fence", rc, rc == PMIX_ERR_PARTIAL_SUCCESS ? ": a PE of the job died or left before "
                    + "entering the fence (rank " + layout.rank() + " of " + layout.size() + ")" : "");
            }
        } finally {
            closeUnlessStuck(a);
        }
    }

    @Override
    public byte[] get(final int fromRank, final String key) {
        checkOpen();
        if (fromRank < 0 || fromRank >= layout.size()) {
            throw new WeftException(Status.INVALID_PARAM, "rank " + fromRank + " is outside the job (size "
                + layout.size() + ")");
        }
        final Arena a = Arena.ofShared();
        try {
            final MemorySegment proc = a.allocate(PROC_SIZE, 8);
            proc.copyFrom(self);
            proc.set(JAVA_INT, RANK_OFFSET, fromRank);
            final MemorySegment valp = a.allocate(ADDRESS);
            final MemorySegment k = a.allocateFrom(fullKey(key));
            final int rc = (int) waitFor("PMIx_Get", () ->
                (int) lib.get.invokeExact(proc, k, MemorySegment.NULL, 0L, valp));
            if (rc != 0) {
                throw new WeftException(Status.NO_ELEMENT, "rank " + fromRank + " has no value for key '" + key
                    + "' (PMIx_Get: " + error("", rc, "").getMessage() + ")");
            }
            final MemorySegment v = valp.get(ADDRESS, 0).reinterpret(VALUE_SIZE);
            try {
                final short type = v.get(JAVA_SHORT, 0);
                if (type != PMIX_BYTE_OBJECT) {
                    throw new WeftException(Status.IO_ERROR, "PMIx value of '" + key + "' from rank " + fromRank
                        + " has type " + type + ", not a byte object");
                }
                final long n = v.get(JAVA_LONG, VALUE_DATA + 8);
                if (n < 0 || n > KvProtocol.MAX_FRAME) {
                    throw new WeftException(Status.IO_ERROR, "PMIx value of '" + key + "' has a bad size " + n);
                }
                final byte[] out = new byte[(int) n];
                if (n > 0) {
                    MemorySegment.copy(v.get(ADDRESS, VALUE_DATA).reinterpret(n), JAVA_BYTE, 0, out, 0, (int) n);
                }
                return out;
            } finally {
                release(v);
            }
        } finally {
            closeUnlessStuck(a);
        }
    }

    private void checkOpen() {
        Bootstrap.checkOpen(closed, aborted);
    }

    /**
     * PMIx_Abort for the whole namespace: the resource manager ({@code mpirun}, {@code srun}) then kills
     * every PE. It runs on a thread of its own (the helper thread may be stuck in a fence) and is given
     * {@value #ABORT_WAIT_S} s; the caller exits either way.
     */
    @Override
    public void abort(final int status, final String reason) {
        if (closed || aborted) {
            return;
        }
        aborted = true;
        final String msg = Bootstrap.abortMessage(layout.rank(), status, reason);
        final Thread t = Thread.ofPlatform().daemon().name("weft-pmix-abort").start(() -> {
            try (Arena a = Arena.ofConfined()) {
                final int rc = (int) lib.abort.invokeExact(status, a.allocateFrom(msg), MemorySegment.NULL, 0L);
                if (rc != 0) {
                    System.err.println("weft: " + error("PMIx_Abort", rc, "").getMessage());
                }
            } catch (final Throwable e) {
                System.err.println("weft: PMIx_Abort failed: " + e);
            }
        });
        try {
            t.join(TimeUnit.SECONDS.toMillis(ABORT_WAIT_S));
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (aborted) {
            return; // the resource manager is ending the job; PMIx_Finalize could wait for it
        }
        if (stuck || calling) {
            waiter.shutdownNow(); // its thread stays in libpmix; the process is about to end anyway
            return;
        }
        try {
            final int rc = (int) lib.finalize.invokeExact(MemorySegment.NULL, 0L);
            if (rc != 0) {
                System.err.println("weft: " + error("PMIx_Finalize", rc, "").getMessage());
            }
        } catch (final Throwable t) {
            System.err.println("weft: PMIx_Finalize failed: " + t);
        } finally {
            waiter.shutdownNow();
            arena.close();
        }
    }

    /** The libpmix entry points. */
    private static final class Lib {
        final MethodHandle init;
        final MethodHandle finalize;
        final MethodHandle put;
        final MethodHandle commit;
        final MethodHandle fence;
        final MethodHandle get;
        final MethodHandle errorString;
        final MethodHandle abort;
        final MethodHandle libcFree;

        private Lib(final SymbolLookup pmix) {
            final Linker linker = Linker.nativeLinker();
            init = linker.downcallHandle(find(pmix, "PMIx_Init"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
            finalize = linker.downcallHandle(find(pmix, "PMIx_Finalize"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
            put = linker.downcallHandle(find(pmix, "PMIx_Put"),
                FunctionDescriptor.of(JAVA_INT, JAVA_BYTE, ADDRESS, ADDRESS));
            commit = linker.downcallHandle(find(pmix, "PMIx_Commit"), FunctionDescriptor.of(JAVA_INT));
            fence = linker.downcallHandle(find(pmix, "PMIx_Fence"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG));
            get = linker.downcallHandle(find(pmix, "PMIx_Get"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
            errorString = linker.downcallHandle(find(pmix, "PMIx_Error_string"),
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
            abort = linker.downcallHandle(find(pmix, "PMIx_Abort"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
            libcFree = linker.downcallHandle(find(linker.defaultLookup(), "free"),
                FunctionDescriptor.ofVoid(ADDRESS));
        }

        private static MemorySegment find(final SymbolLookup l, final String name) {
            return l.find(name).orElseThrow(() -> new WeftException(Status.UNSUPPORTED,
                "libpmix has no symbol " + name + " (not a PMIx 2 or newer library?)"));
        }

        void free(final MemorySegment p) {
            try {
                libcFree.invokeExact(p);
            } catch (final Throwable t) {
                throw new IllegalStateException("free() failed", t);
            }
        }

        static Lib load(final String configured) {
            final List<String> tried = new ArrayList<>();
            if (configured != null && !configured.isBlank()) {
                tried.add(configured);
                try {
                    return new Lib(SymbolLookup.libraryLookup(Path.of(configured), Arena.global()));
                } catch (final IllegalArgumentException e) {
                    throw new WeftException(Status.UNSUPPORTED, "cannot load libpmix from WEFT_PMIX_LIBRARY="
                        + configured + ": " + e.getMessage(), e);
                }
            }
            tried.add("libpmix.so.2 (loader path, ldconfig)");
            try {
                return new Lib(SymbolLookup.libraryLookup("libpmix.so.2", Arena.global()));
            } catch (final IllegalArgumentException e) {
                // not on the loader path: try the usual install locations below
            }
            final String arch = System.getProperty("os.arch").equals("aarch64") ? "aarch64" : "x86_64";
            for (final String dir : List.of("/usr/lib/" + arch + "-linux-gnu/pmix2/lib", "/usr/lib/" + arch
                + "-linux-gnu", "/usr/lib64/pmix2/lib", "/usr/lib64", "/usr/local/lib", "/opt/pmix/lib")) {
                final Path p = Path.of(dir, "libpmix.so.2");
                tried.add(p.toString());
                if (Files.exists(p)) {
                    return new Lib(SymbolLookup.libraryLookup(p, Arena.global()));
                }
            }
            throw new WeftException(Status.UNSUPPORTED, "the PMIx bootstrap needs libpmix, which was not found "
                + "(tried " + String.join(", ", tried) + "); install it (Debian: libpmix2) or set "
                + "WEFT_PMIX_LIBRARY to its path");
        }
    }
}
