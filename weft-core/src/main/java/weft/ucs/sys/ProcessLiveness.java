package weft.ucs.sys;


import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads a process's start time (field 22 of {@code /proc/<pid>/stat}) so that a pid that died
 * and was reused is not mistaken for the peer. The polling form allocates nothing: the caller
 * keeps the path and a scratch buffer.
 */
public final class ProcessLiveness {
    /** Returned when the process is gone (or a zombie). */
    public static final long DEAD = -1;
    private static final int BUFFER = 1024;
    /** Past the ')' that ends the command name: pid (at most 7 digits), " (", the name (at most 15 bytes), ")". */
    static final int NAME_END = 64;

    private ProcessLiveness() {
    }

    /** Scratch buffer for {@link #startTime(MemorySegment, MemorySegment)}. */
    public static MemorySegment newBuffer(final Arena arena) {
        return arena.allocate(BUFFER);
    }

    /** NUL-terminated {@code /proc/<pid>/stat}. */
    public static MemorySegment statPath(final Arena arena, final int pid) {
        return arena.allocateFrom("/proc/" + pid + "/stat");
    }

    /** Start time of {@code pid} (setup path), or {@link #DEAD}. */
    public static long startTime(final int pid) {
        try (Arena a = Arena.ofConfined()) {
            return startTime(statPath(a, pid), newBuffer(a));
        }
    }

    /** Start time of the process whose stat file is {@code path}, or {@link #DEAD}. No allocation. */
    public static long startTime(final MemorySegment path, final MemorySegment buf) {
        final int fd = LibC.open(path, LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
        if (fd < 0) {
            return DEAD;
        }
        final long n;
        try {
            n = LibC.read(fd, buf.address(), buf.byteSize());
        } finally {
            LibC.close(fd);
        }
        if (n <= 0) {
            return DEAD;
        }
        // the command name may contain spaces and parentheses: fields are counted after the last ')'. The name
        // is at most 15 bytes after a pid of at most 7 digits, so that ')' lies in the first bytes: the scan
        // starts there, not at the end of the line (250 bytes fewer, read interpreted on a crowded node)
        long i = Math.min(n, NAME_END) - 1;
        while (i >= 0 && buf.get(ValueLayout.JAVA_BYTE, i) != ')') {
            i--;
        }
        if (i < 0) {
            return DEAD;
        }
        int field = 2;
        long value = 0;
        for (long p = i + 1; p < n; p++) {
            final byte b = buf.get(ValueLayout.JAVA_BYTE, p);
            if (b == ' ') {
                field++;
                if (field == 23) {
                    return value;
                }
                continue;
            }
            if (field == 3 && (b == 'Z' || b == 'X')) {
                return DEAD; // exited, not reaped yet
            }
            if (field == 22 && b >= '0' && b <= '9') {
                value = value * 10 + (b - '0');
            }
        }
        return field == 22 ? value : DEAD;
    }
}
