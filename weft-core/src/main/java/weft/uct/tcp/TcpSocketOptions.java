package weft.uct.tcp;

import weft.ucs.config.Config;
import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The options every data socket of an interface gets (no Nagle, kernel keepalive, a bounded wait for
 * unacknowledged data, optional fixed kernel buffers), read once from the configuration, and the socket
 * helpers around them. Single threaded (the interface's progress thread).
 */
final class TcpSocketOptions {
    private final int keepIdleS;
    private final int keepIntvlS;
    private final int keepCnt;
    /** SO_SNDBUF / SO_RCVBUF of data sockets, 0 = leave the kernel's autotuning. */
    private final int sndBuf;
    private final int rcvBuf;
    private final int userTimeoutMs;
    /** getsockopt's value and length. */
    private final MemorySegment scratch;

    TcpSocketOptions(final Config cfg, final Arena arena) {
        this.keepIdleS = (int) Math.max(1, cfg.get(TcpTransport.KEEPIDLE) / 1_000_000_000L);
        this.keepIntvlS = (int) Math.max(1, cfg.get(TcpTransport.KEEPINTVL) / 1_000_000_000L);
        this.keepCnt = Math.max(1, cfg.get(TcpTransport.KEEPCNT));
        this.sndBuf = (int) Math.min(Integer.MAX_VALUE, cfg.get(TcpTransport.SNDBUF));
        this.rcvBuf = (int) Math.min(Integer.MAX_VALUE, cfg.get(TcpTransport.RCVBUF));
        this.userTimeoutMs = (int) Math.min(Integer.MAX_VALUE, cfg.get(TcpTransport.USER_TIMEOUT) / 1_000_000L);
        this.scratch = arena.allocate(16, 8);
    }

    /** How long the kernel waits for unacknowledged data before it fails the socket (TCP_USER_TIMEOUT). */
    long userTimeoutNs() {
        return userTimeoutMs * 1_000_000L;
    }

    /** Sets the options on data socket {@code fd}. */
    void configure(final int fd) {
        LibC.check(LibC.setsockoptInt(fd, LibC.IPPROTO_TCP, LibC.TCP_NODELAY, 1), "TCP_NODELAY");
        LibC.check(LibC.setsockoptInt(fd, LibC.SOL_SOCKET, LibC.SO_KEEPALIVE, 1), "SO_KEEPALIVE");
        LibC.check(LibC.setsockoptInt(fd, LibC.IPPROTO_TCP, LibC.TCP_KEEPIDLE, keepIdleS), "TCP_KEEPIDLE");
        LibC.check(LibC.setsockoptInt(fd, LibC.IPPROTO_TCP, LibC.TCP_KEEPINTVL, keepIntvlS), "TCP_KEEPINTVL");
        LibC.check(LibC.setsockoptInt(fd, LibC.IPPROTO_TCP, LibC.TCP_KEEPCNT, keepCnt), "TCP_KEEPCNT");
        LibC.check(LibC.setsockoptInt(fd, LibC.IPPROTO_TCP, LibC.TCP_USER_TIMEOUT, userTimeoutMs),
            "TCP_USER_TIMEOUT");
        if (sndBuf > 0) {
            LibC.check(LibC.setsockoptInt(fd, LibC.SOL_SOCKET, LibC.SO_SNDBUF, sndBuf), "SO_SNDBUF");
        }
        if (rcvBuf > 0) {
            LibC.check(LibC.setsockoptInt(fd, LibC.SOL_SOCKET, LibC.SO_RCVBUF, rcvBuf), "SO_RCVBUF");
        }
    }

    /** The pending error of a socket (SO_ERROR), 0 if none. */
    int error(final int fd) {
        scratch.set(JAVA_INT, 8, 4);
        final int r = LibC.getsockopt(fd, LibC.SOL_SOCKET, LibC.SO_ERROR, scratch, scratch.asSlice(8, 4));
        return r < 0 ? -r : scratch.get(JAVA_INT, 0);
    }

    /** A {@code sockaddr_in} for {@code ip:port} in {@code a}. */
    static MemorySegment sockaddr(final Arena a, final int ip, final int port) {
        final MemorySegment sa = a.allocate(LibC.SOCKADDR_IN_SIZE);
        sa.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) LibC.AF_INET); // host order
        sa.set(LibC.SHORT_BE, 2, (short) port);
        sa.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 4, ip);
        return sa;
    }
}
