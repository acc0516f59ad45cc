package weft.ucs.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * How {@link LibC} links and calls libc: downcall handles with and without errno capture, the per-thread
 * capture buffer, errno read after an uncaptured call, and the rethrow of what a handle throws. LibC's
 * wrappers are the calls; this is the one place that knows how a call reports its error.
 */
@SuppressWarnings("restricted")
final class Downcalls {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LOOKUP = LINKER.defaultLookup();
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /** The errno capture buffer of the calling thread, passed first to every capturing handle. */
    static final ThreadLocal<MemorySegment> CAPTURE =
        ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private static final class ErrnoLocation {
        static final MethodHandle H = LINKER.downcallHandle(symbol("__errno_location"),
        FunctionDescriptor.of(JAVA_LONG), Linker.Option.critical(false)); }
    private static final MemorySegment ALL_MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private Downcalls() {
    }

    /**
     * The call shape of every libc call Weft makes: six integer or pointer arguments, an integer or pointer
     * result; linked with errno captured ({@link #setup}) or without ({@link #plain}). Linking generates code
     * per call shape and options (shared by every function of that shape; the AOT cache does not keep it):
     * the first link of a process costs about 0.17 CPU s, each further shape about 15 ms and its compiles, so
     * one shape instead of one per C prototype saves most of the time a PE spent opening its context. On the ABIs Weft
     * runs on (Linux on x86-64 and AArch64) integer and pointer arguments travel in the same 64-bit registers
     * whatever their C width, a function ignores the registers it has no parameter for, and an {@code int}
     * result is the low half of the register: {@link #setupInt} narrows it, and pointers go as the addresses
     * of native memory ({@link #address}).
     */
    private static final FunctionDescriptor SHAPE = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);

    /** {@code name} linked with the call shape, errno captured (see {@link #SHAPE}): the setup path's calls. */
    static MethodHandle setup(final String name) {
        return LINKER.downcallHandle(symbol(name), SHAPE, Linker.Option.captureCallState("errno"));
    }

    /** Calls a setup-shape function returning a C {@code int}: its result, or -errno. */
    static int setupInt(final MethodHandle h, final long a1, final long a2, final long a3, final long a4,
                        final long a5, final long a6) {
        final MemorySegment c = CAPTURE.get();
        final int r;
        try {
            r = (int) (long) h.invokeExact(c, a1, a2, a3, a4, a5, a6);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        return r != -1 ? r : (int) fail(c);
    }

    /** Calls a setup-shape function returning a 64-bit value (an address, an offset): it, or -errno. */
    static long setupLong(final MethodHandle h, final long a1, final long a2, final long a3, final long a4,
                          final long a5, final long a6) {
        final MemorySegment c = CAPTURE.get();
        final long r;
        try {
            r = (long) h.invokeExact(c, a1, a2, a3, a4, a5, a6);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
        return r != -1L ? r : fail(c);
    }

    /**
     * The address of native memory passed as a pointer ({@code NULL} is 0). A heap segment has no stable
     * address: refused, as the linker refuses it for a pointer parameter. The caller keeps the segment
     * reachable across the call.
     */
    static long address(final MemorySegment s) {
        if (!s.isNative()) {
            throw new IllegalArgumentException("a system call needs native memory, not " + s);
        }
        return s.address();
    }

    /**
     * {@code name} linked with the call shape without errno capture: the data path's calls (reads, writes, sends,
     * epoll_wait, process_vm_readv), which must not allocate and read errno only when they fail
     * ({@link #lastErrno}). A
     * call passes its {@code int} arguments as {@code long}s and narrows an {@code int} result, as
     * {@link #setupInt} does.
     */
    static MethodHandle plain(final String name) {
        return LINKER.downcallHandle(symbol(name), SHAPE);
    }

    static MemorySegment symbol(final String name) {
        return LOOKUP.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: " + name));
    }

    /**
     * errno as the calling thread's libc left it, read through {@code __errno_location} after a call made
     * without capture. The JVM may run between that call and this read (a safepoint on the way back from
     * native code can block in the VM and overwrite errno), so a caller trusts only the value a clobbering
     * could not make dangerous: EAGAIN means "try again later", which for a real error is a delay (socket
     * errors and end-of-file persist and show on the next call), never a loss. Anything else is
     * confirmed by issuing the call again through its errno-capturing setup-shape handle: every call that uses
     * this failed without effect, so the retry is safe.
     */
    static int lastErrno() throws Throwable {
        final long where = (long) ErrnoLocation.H.invokeExact();
        return ALL_MEMORY.get(JAVA_INT, where);
    }

    static long fail(final MemorySegment cap) {
        return -(int) ERRNO.get(cap, 0L);
    }

    static RuntimeException rethrow(final Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
