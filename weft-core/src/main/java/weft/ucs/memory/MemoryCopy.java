package weft.ucs.memory;

import weft.ucs.config.Config;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Reference;
import java.util.List;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Copies between memory segments as {@link MemorySegment#copy(MemorySegment, long, MemorySegment, long, long)}
 * does, faster for the medium sizes of bcopy messages: between two native segments, a copy of
 * {@code WEFT_NATIVE_COPY_MIN} to {@code WEFT_NATIVE_COPY_MAX} bytes (512 B to 64 KiB by default) is
 * the C library's {@code memmove} through a critical downcall. On this project's machine (x86_64,
 * ERMS/FSRM) glibc copies such sizes with {@code rep movsb}, and the JDK's copy stub with 32-byte
 * vector moves, 10-20 % slower from 512 B to 16 KiB (2 KiB: 37 ns against 31; 8 KiB: 163 against
 * 141) and no different at 128 KiB (a later instance of the machine showed no such gain at 2 and 8 KiB:
 * bench/results/2026-11-28-session24-copy-distance.txt). The native range is capped at 1 MiB: a critical
 * call holds off safepoints (and so the GC) until it returns.
 *
 * <p>Large copies, from {@code WEFT_NATIVE_COPY_LARGE} (512 KiB by default) to the same 1 MiB cap, are
 * {@code memmove} too: above the L2 size glibc copies with its vector loop, 31-35 GB/s at every
 * source-destination distance here against the JDK's 28-30 (1 MiB from a mapped peer's memory: 32 us
 * against 36; {@code bench/memmove-distance.c 1048576}). Larger copies stay the JDK's: a longer critical
 * call would hold off safepoints for milliseconds.
 * The JDK's copy loses most where the destination is not aligned as the source (a direct ByteBuffer
 * starts 16 bytes into a page): the JUCX read benchmark's 1 MiB gets, 26 GB/s against JUCX's 28.6. Between
 * 64 KiB and 512 KiB the JDK copies: there glibc's {@code rep movsb} crawls at distances up to 31 bytes
 * (128 KiB: 1.8-2.7 GB/s). The distance rule below applies to large copies too, although no distance was
 * slow here from 512 KiB up.
 *
 * <p>One exception: when the destination lies 1 to 63 bytes ahead of the source modulo 4 KiB (a payload
 * copied from a page-aligned buffer into a descriptor 16 bytes into its page, say), glibc's {@code rep movsb}
 * copies 4 KiB or more at 0.7-3.5 GB/s instead of 40-60 (64 KiB: 19.4 us against 1.1; the JDK's copy: 1.2 us;
 * {@code bench/memmove-distance.c}), so those copies go the JDK's way. The slow window was 1-15 bytes on the
 * machine first measured and 1-31 on a later one; from 33 to 63 the JDK's copy is as fast or faster, so the
 * rule takes the whole first cache line.
 *
 * <p>Checks are the same: bounds (IndexOutOfBoundsException), a read-only destination
 * (IllegalArgumentException), a closed arena (IllegalStateException), a confined segment used from
 * another thread (WrongThreadException); overlapping ranges copy as if through a temporary buffer.
 * One difference: the arenas are not held open during the native copy, so closing a shared arena from
 * another thread while a copy from or to it runs frees memory under the copy. That is the rule of any
 * communication call (a buffer stays allocated until the operation on it completes); Weft's own
 * calls copy only from and to memory whose arena outlives them.
 *
 * <pre>{@code
 * MemoryCopy.copy(userBuffer, offset, descriptor, 8, length); // same arguments as MemorySegment.copy
 * }</pre>
 * Allocation free.
 */
public final class MemoryCopy {
    static final ConfigVar<Long> NATIVE_MIN = ConfigRegistry.register("NATIVE_COPY_MIN", ConfigType.SIZE, "512",
        "Smallest copy between native segments done by the C library's memmove (smaller ones by the JDK).");
    static final ConfigVar<Long> NATIVE_MAX = ConfigRegistry.register("NATIVE_COPY_MAX", ConfigType.SIZE, "64k",
        "Largest copy between native segments done by the C library's memmove through a critical downcall "
            + "(at most 1m); 0 turns that native copy off.");
    static final ConfigVar<Long> NATIVE_LARGE = ConfigRegistry.register("NATIVE_COPY_LARGE", ConfigType.SIZE,
        "512k", "Smallest large copy between native segments done by the C library's memmove (up to 1m; glibc's "
            + "vector loop for sizes above the L2 cache); inf turns it off.");

    private static final long PAGE_MASK = 4095;
    /**
     * A destination less than this far ahead of its source modulo 4 KiB (1 to 63 bytes) makes glibc's copy
     * of 4 KiB or more crawl on this machine (see the class comment): such copies take the JDK's way.
     */
    static final long SLOW_DISTANCE = 64;

    /** The largest native copy whatever the configuration says (see the class comment). */
    static final long MAX_CAP = 1L << 20;
    private static final long MIN;
    private static final long MAX;
    private static final long LARGE;
    private static final MethodHandle MEMMOVE;

    static {
        final Config c = Config.global();
        MIN = Math.max(1, c.get(NATIVE_MIN));
        MAX = Math.min(c.get(NATIVE_MAX), MAX_CAP);
        LARGE = Math.max(MAX + 1, c.get(NATIVE_LARGE));
        final Linker linker = Linker.nativeLinker();
        // critical: no thread-state transition (a copy of at most 1 MiB is short), no safepoint inside
        @SuppressWarnings("restricted")
        final MethodHandle h = linker.downcallHandle(
            linker.defaultLookup().find("memmove").orElseThrow(() -> new UnsatisfiedLinkError("libc memmove")),
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
        MEMMOVE = h;
    }

    private MemoryCopy() {
    }

    /**
     * Links the native copy now (its downcall's code generation takes milliseconds), so that the first
     * message a process receives does not pay it: a PE calls this on its link thread while it joins its job.
     */
    public static void link() {
        Objects.requireNonNull(MEMMOVE);
    }

    /** The configuration variables of this class (for {@code ./weft info -c}). */
    public static List<ConfigVar<?>> configVars() {
        return List.of(NATIVE_MIN, NATIVE_MAX, NATIVE_LARGE);
    }

    /**
     * Copies {@code length} bytes from {@code src} at {@code srcOffset} to {@code dst} at
     * {@code dstOffset}: the contract of {@link MemorySegment#copy(MemorySegment, long, MemorySegment, long, long)},
     * except that a native copy does not hold the arenas open (see the class comment).
     */
    public static void copy(final MemorySegment src, final long srcOffset, final MemorySegment dst,
                            final long dstOffset, final long length) {
        if (length >= MIN && (length <= MAX || length >= LARGE && length <= MAX_CAP) && src.isNative()
            && dst.isNative()) {
            copyNative(src, srcOffset, dst, dstOffset, length);
        } else {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, length);
        }
    }

    /**
     * The native copy, a method of its own: copy() stays a few bytecodes that the JIT inlines at every
     * call site, so that the short copies of the message paths compile exactly as MemorySegment.copy does
     * (with the downcall inside, copy() compiled larger than the inlining limit for already compiled code,
     * and tag_bw 8 B's receive path called it out of line).
     */
    private static void copyNative(final MemorySegment src, final long srcOffset, final MemorySegment dst,
                                   final long dstOffset, final long length) {
        Objects.checkFromIndexSize(srcOffset, length, src.byteSize());
        Objects.checkFromIndexSize(dstOffset, length, dst.byteSize());
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("the destination segment is read-only");
        }
        usable(src);
        usable(dst);
        final long to = dst.address() + dstOffset;
        final long from = src.address() + srcOffset;
        if (slowForLibc(to, from)) {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, length);
            return;
        }
        try {
            final long ignored = (long) MEMMOVE.invokeExact(to, from, length);
        } catch (final Throwable t) {
            throw new IllegalStateException("memmove failed", t); // a downcall with long arguments cannot throw
        } finally {
            // the segments (and through them automatic arenas) stay reachable until the copy is done
            Reference.reachabilityFence(src);
            Reference.reachabilityFence(dst);
        }
    }

    /** True if glibc copies from {@code from} to {@code to} slowly (see the class comment). */
    static boolean slowForLibc(final long to, final long from) {
        final long ahead = (to - from) & PAGE_MASK;
        return ahead != 0 && ahead < SLOW_DISTANCE;
    }

    private static void usable(final MemorySegment s) {
        if (!s.scope().isAlive()) {
            throw new IllegalStateException("Already closed: the segment's arena is closed");
        }
        if (!s.isAccessibleBy(Thread.currentThread())) {
            throw new WrongThreadException("the segment is confined to another thread");
        }
    }
}
