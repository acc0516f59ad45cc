package weft.uct.tcp;

import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;

/**
 * The part of a stream a resumed {@link TcpChannel} sends again, {@code [pos, end)}: what the peer
 * had not consumed when the old socket broke, written from the {@link TcpReplayLog} on the new
 * socket before anything still queued. Single threaded (the interface's progress thread).
 */
final class TcpReplayCursor {
    private static final int BATCH = 64;

    private long pos;
    private long end;
    /** iovec entries for one writev ({@link #BATCH}), from the channel's arena at the first replay. */
    private long iovs;

    /** Starts sending {@code [from, to)} again; returns true if there is anything to send. */
    boolean start(final long from, final long to, final Arena arena) {
        if (iovs == 0) {
            iovs = arena.allocate(16L * BATCH, 16).address();
        }
        pos = from;
        end = to;
        return pos < end;
    }

    /** Bytes still to send (for the log line). */
    long remaining() {
        return end - pos;
    }

    /** Writes the replayed bytes to {@code fd}: 1 when done, 0 when the socket is full, or -errno. */
    int write(final int fd, final TcpReplayLog log) {
        while (pos < end) {
            final int n = log.fill(pos, end, iovs, BATCH);
            final long ask = log.filled;
            final long w = LibC.writev(fd, iovs, n);
            if (w < 0) {
                return w == -LibC.EAGAIN ? 0 : (int) w;
            }
            pos += w;
            if (w < ask) {
                return 0;
            }
        }
        return 1;
    }
}
