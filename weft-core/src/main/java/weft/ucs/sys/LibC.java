package weft.ucs.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Reference;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static weft.ucs.sys.Downcalls.lastErrno;
import static weft.ucs.sys.Downcalls.plain;
import static weft.ucs.sys.Downcalls.rethrow;
import static weft.ucs.sys.Downcalls.address;
import static weft.ucs.sys.Downcalls.setup;
import static weft.ucs.sys.Downcalls.setupInt;
import static weft.ucs.sys.Downcalls.setupLong;

/**
 * The Linux system calls Weft needs, as FFM downcalls (x86_64 / aarch64 Linux, glibc).
 *
 * <p>Convention: every wrapper returns the call's result when it succeeds and {@code -errno}
 * when it fails, so the data path never throws or allocates. {@link #check} turns a failure into
 * an exception for setup code. Handles are looked up once; the errno capture buffer is per thread.
 *
 * <p>Needs {@code --enable-native-access=ALL-UNNAMED} (or the module name); the {@code weft}
 * entry script passes it.
 */
@SuppressWarnings("restricted")
public final class LibC {
    // ---- constants (Linux, x86_64 and aarch64 share these) ----
    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0100;
    public static final int O_EXCL = 0200;
    public static final int O_CLOEXEC = 02000000;
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final int MAP_PRIVATE = 2;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MAP_NORESERVE = 0x4000;
    /** Map exactly at the hint or fail with EEXIST (Linux 4.17+; older kernels treat it as a hint). */
    public static final int MAP_FIXED_NOREPLACE = 0x100000;
    public static final int EEXIST = 17;
    /** The signal that makes a HotSpot JVM print its threads' stacks on its standard output. */
    public static final int SIGQUIT = 3;
    public static final int MFD_CLOEXEC = 1;
    public static final int MFD_ALLOW_SEALING = 2;
    public static final int SEEK_END = 2;
    public static final int F_ADD_SEALS = 1033;
    public static final int F_GET_SEALS = 1034;
    public static final int F_SEAL_SEAL = 1;
    public static final int F_SEAL_SHRINK = 2;
    public static final int F_SEAL_GROW = 4;
    public static final int F_SETPIPE_SZ = 1031;
    public static final int F_GETPIPE_SZ = 1032;
    public static final int O_NONBLOCK = 04000;
    /** splice(2)/vmsplice(2) flags. */
    public static final int SPLICE_F_MOVE = 1;
    public static final int SPLICE_F_NONBLOCK = 2;
    public static final int AF_UNIX = 1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_NONBLOCK = 04000;
    public static final int SOCK_CLOEXEC = 02000000;
    public static final int SOL_SOCKET = 1;
    public static final int SO_REUSEADDR = 2;
    public static final int SO_ERROR = 4;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    public static final int SO_KEEPALIVE = 9;
    public static final int IPPROTO_TCP = 6;
    public static final int TCP_NODELAY = 1;
    public static final int TCP_KEEPIDLE = 4;
    public static final int TCP_KEEPINTVL = 5;
    public static final int TCP_KEEPCNT = 6;
    public static final int TCP_USER_TIMEOUT = 18;
    public static final int SHUT_RDWR = 2;
    public static final int MSG_DONTWAIT = 0x40;
    public static final int MSG_NOSIGNAL = 0x4000;
    public static final int EPOLLIN = 0x1;
    public static final int EPOLLOUT = 0x4;
    public static final int EPOLLERR = 0x8;
    public static final int EPOLLHUP = 0x10;
    public static final int EPOLLRDHUP = 0x2000;
    public static final int EPOLL_CTL_ADD = 1;
    public static final int EPOLL_CTL_DEL = 2;
    public static final int EPOLL_CTL_MOD = 3;
    public static final int EPOLL_CLOEXEC = 02000000;
    public static final int EFD_NONBLOCK = 04000;
    public static final int EFD_CLOEXEC = 02000000;
    public static final int POLLIN = 0x1;
    public static final int POLLOUT = 0x4;
    public static final int POLLERR = 0x8;
    public static final int POLLHUP = 0x10;
    public static final int POLLNVAL = 0x20;
    public static final int F_GETFD = 1;
    /** Open file description locks (Linux 3.15+): byte-range locks owned by the open file, not the process. */
    public static final int F_OFD_GETLK = 36;
    public static final int F_OFD_SETLK = 37;
    public static final int F_OFD_SETLKW = 38;
    public static final short F_RDLCK = 0;
    public static final short F_WRLCK = 1;
    public static final short F_UNLCK = 2;

    public static final int ENOTSOCK = 88;
    public static final int PR_SET_PTRACER = 0x59616d61;
    public static final long PR_SET_PTRACER_ANY = -1L;

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EINVAL = 22;
    public static final int ENOLCK = 37;
    public static final int EOPNOTSUPP = 95;
    public static final int EPIPE = 32;
    public static final int EADDRINUSE = 98;
    public static final int ECONNRESET = 104;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EINPROGRESS = 115;

    /** {@code struct iovec {void *base; size_t len;}}. */
    public static final StructLayout IOVEC = MemoryLayout.structLayout(JAVA_LONG.withName("base"),
        JAVA_LONG.withName("len"));
    /** {@code struct epoll_event {uint32_t events; uint64_t data;}}, packed on x86_64 (12 bytes). */
    public static final StructLayout EPOLL_EVENT = MemoryLayout.structLayout(JAVA_INT.withName("events"),
        JAVA_LONG.withByteAlignment(4).withName("data"));
    /** {@code struct flock {short l_type; short l_whence; off_t l_start; off_t l_len; pid_t l_pid;}} (32 bytes). */
    public static final StructLayout FLOCK = MemoryLayout.structLayout(JAVA_SHORT.withName("l_type"),
        JAVA_SHORT.withName("l_whence"), MemoryLayout.paddingLayout(4), JAVA_LONG.withName("l_start"),
        JAVA_LONG.withName("l_len"), JAVA_INT.withName("l_pid"), MemoryLayout.paddingLayout(4));
    /** {@code struct pollfd {int fd; short events; short revents;}}. */
    public static final long POLLFD_SIZE = 8;
    public static final long SOCKADDR_IN_SIZE = 16;
    public static final long SOCKADDR_IN6_SIZE = 28;
    public static final long SOCKADDR_UN_SIZE = 110;

    // Each downcall handle sits in a holder class of its own, linked at its first use: linking costs a few
    // milliseconds a handle (the JVM generates code for it, which the AOT cache does not keep), and a
    // process uses a few of the fifty, so linking all of them when LibC loaded was most of a Context's
    // creation. A static final in a holder stays a constant for the JIT.

    private static final class Open { static final MethodHandle H = setup("open"); }
    private static final class Close { static final MethodHandle H = setup("close"); }
    private static final class Ftruncate { static final MethodHandle H = setup("ftruncate"); }
    private static final class Fchmod { static final MethodHandle H = setup("fchmod"); }
    private static final class Unlink { static final MethodHandle H = setup("unlink"); }
    private static final class MemfdCreate { static final MethodHandle H = setup("memfd_create"); }
    private static final class Mmap { static final MethodHandle H = setup("mmap"); }
    private static final class Munmap { static final MethodHandle H = setup("munmap"); }
    private static final class Socket { static final MethodHandle H = setup("socket"); }
    private static final class Bind { static final MethodHandle H = setup("bind"); }
    private static final class Listen { static final MethodHandle H = setup("listen"); }
    private static final class Accept4 { static final MethodHandle H = setup("accept4"); }
    private static final class Connect { static final MethodHandle H = setup("connect"); }
    private static final class Getsockname { static final MethodHandle H = setup("getsockname"); }
    private static final class Getpeername { static final MethodHandle H = setup("getpeername"); }
    private static final class Kill { static final MethodHandle H = setup("kill"); }
    private static final class Setsockopt { static final MethodHandle H = setup("setsockopt"); }
    private static final class Getsockopt { static final MethodHandle H = setup("getsockopt"); }
    private static final class Shutdown { static final MethodHandle H = setup("shutdown"); }
    private static final class Send { static final MethodHandle H = setup("send"); }
    private static final class Recv { static final MethodHandle H = setup("recv"); }
    private static final class Sendto { static final MethodHandle H = setup("sendto"); }
    private static final class Writev { static final MethodHandle H = setup("writev"); }
    private static final class Readv { static final MethodHandle H = setup("readv"); }
    private static final class Read { static final MethodHandle H = setup("read"); }
    private static final class Write { static final MethodHandle H = setup("write"); }
    private static final class EpollCreate1 { static final MethodHandle H = setup("epoll_create1"); }
    private static final class EpollCtl { static final MethodHandle H = setup("epoll_ctl"); }
    private static final class EpollWait { static final MethodHandle H = setup("epoll_wait"); }
    private static final class Eventfd { static final MethodHandle H = setup("eventfd"); }
    private static final class Poll { static final MethodHandle H = setup("poll"); }
    private static final class ProcessVmReadv { static final MethodHandle H = setup("process_vm_readv"); }
    private static final class ProcessVmWritev { static final MethodHandle H = setup("process_vm_writev"); }
    // the data path's copies go through these (see processVmReadv)
    private static final class ProcessVmReadvPlain { static final MethodHandle H = plain("process_vm_readv"); }
    private static final class ProcessVmWritevPlain { static final MethodHandle H = plain("process_vm_writev"); }
    // the data path's socket, eventfd and epoll calls go through these (see recv)
    private static final class SendPlain { static final MethodHandle H = plain("send"); }
    private static final class RecvPlain { static final MethodHandle H = plain("recv"); }
    private static final class WritevPlain { static final MethodHandle H = plain("writev"); }
    private static final class ReadvPlain { static final MethodHandle H = plain("readv"); }
    private static final class ReadPlain { static final MethodHandle H = plain("read"); }
    private static final class WritePlain { static final MethodHandle H = plain("write"); }
    private static final class EpollWaitPlain { static final MethodHandle H = plain("epoll_wait"); }
    private static final class PollPlain { static final MethodHandle H = plain("poll"); }
    private static final class Prctl { static final MethodHandle H = setup("prctl"); }
    private static final class Lseek { static final MethodHandle H = setup("lseek"); }
    private static final class Fcntl { static final MethodHandle H = setup("fcntl"); }
    private static final class Pipe2 { static final MethodHandle H = setup("pipe2"); }
    private static final class SchedSetaffinity { static final MethodHandle H = setup("sched_setaffinity"); }
    private static final class SchedGetaffinity { static final MethodHandle H = setup("sched_getaffinity"); }
    private static final class Socketpair { static final MethodHandle H = setup("socketpair"); }
    private static final class Vmsplice { static final MethodHandle H = setup("vmsplice"); }
    private static final class VmsplicePlain { static final MethodHandle H = plain("vmsplice"); }
    private static final class Splice { static final MethodHandle H = setup("splice"); }
    private static final class SplicePlain { static final MethodHandle H = plain("splice"); }
    private static final class Strerror { static final MethodHandle H = plain("strerror"); }

    private LibC() {
    }

    /**
     * Links, ahead of their first use, the calls a process makes while it opens a context and a worker over
     * the default transports (shm, cma, tcp), and the first progress's {@code epoll_wait}. A PE calls this on
     * a helper thread while it joins its job over the network, so that the code generation of these links
     * overlaps the wait. Each holder initializes once,
     * whichever thread comes first; the other waits for it.
     *
     * @return how many calls were linked (a checksum, so the reads are not dead code)
     */
    public static int linkSetupCalls() {
        final MethodHandle[] linked = {Open.H, ReadPlain.H, Close.H, MemfdCreate.H, Fchmod.H, Ftruncate.H,
            Fcntl.H, Mmap.H, Munmap.H, ProcessVmReadvPlain.H, ProcessVmWritevPlain.H, Socket.H, Bind.H, Listen.H,
            Getsockname.H, EpollCreate1.H, EpollCtl.H, EpollWaitPlain.H, Lseek.H};
        return linked.length;
    }

    // ---- helpers ----

    /** Throws an {@link java.io.UncheckedIOException} naming {@code what} if {@code r < 0}; returns r. */
    public static long check(final long r, final String what) {
        if (r < 0) {
            throw new java.io.UncheckedIOException(new java.io.IOException(what + ": " + strerror((int) -r)
                + " (errno " + -r + ")"));
        }
        return r;
    }

    /** The text of {@code errno}. */
    public static String strerror(final int errno) {
        try {
            final long p = (long) Strerror.H.invokeExact((long) errno, 0L, 0L, 0L, 0L, 0L);
            return MemorySegment.ofAddress(p).reinterpret(1024).getString(0);
        } catch (final Throwable t) {
            return "errno " + errno;
        }
    }

    /** A NUL-terminated copy of {@code s} in {@code arena}. */
    public static MemorySegment cString(final Arena arena, final String s) {
        return arena.allocateFrom(s);
    }

    // ---- files and memory ----

    public static int open(final MemorySegment path, final int flags, final int mode) {
        try {
            return setupInt(Open.H, address(path), flags, mode, 0, 0, 0);
        } finally {
            Reference.reachabilityFence(path);
        }
    }

    public static int close(final int fd) {
        return setupInt(Close.H, fd, 0, 0, 0, 0, 0);
    }

    public static int ftruncate(final int fd, final long length) {
        return setupInt(Ftruncate.H, fd, length, 0, 0, 0, 0);
    }

    public static int fchmod(final int fd, final int mode) {
        return setupInt(Fchmod.H, fd, mode, 0, 0, 0, 0);
    }

    public static int unlink(final MemorySegment path) {
        try {
            return setupInt(Unlink.H, address(path), 0, 0, 0, 0, 0);
        } finally {
            Reference.reachabilityFence(path);
        }
    }

    public static int memfdCreate(final MemorySegment name, final int flags) {
        try {
            return setupInt(MemfdCreate.H, address(name), flags, 0, 0, 0, 0);
        } finally {
            Reference.reachabilityFence(name);
        }
    }

    /** mmap; returns the address, or -errno (addresses are never in [-4095, -1]). */
    public static long mmap(final long addr, final long length, final int prot, final int flags, final int fd,
                            final long offset) {
        return setupLong(Mmap.H, addr, length, prot, flags, fd, offset);
    }

    public static int munmap(final long addr, final long length) {
        return setupInt(Munmap.H, addr, length, 0, 0, 0, 0);
    }

    public static int getpid() {
        return (int) ProcessHandle.current().pid();
    }

    /** kill(2): sends {@code signal} to process {@code pid}; 0, or -errno. */
    public static int kill(final int pid, final int signal) {
        return setupInt(Kill.H, pid, signal, 0, 0, 0, 0);
    }

    // ---- sockets ----

    public static int socket(final int domain, final int type, final int protocol) {
        return setupInt(Socket.H, domain, type, protocol, 0, 0, 0);
    }

    public static int bind(final int fd, final MemorySegment addr, final int len) {
        try {
            return setupInt(Bind.H, fd, address(addr), len, 0, 0, 0);
        } finally {
            Reference.reachabilityFence(addr);
        }
    }

    public static int listen(final int fd, final int backlog) {
        return setupInt(Listen.H, fd, backlog, 0, 0, 0, 0);
    }

    /** accept4; {@code addr}/{@code addrLen} may be {@link MemorySegment#NULL}. */
    public static int accept4(final int fd, final MemorySegment addr, final MemorySegment addrLen, final int flags) {
        try {
            return setupInt(Accept4.H, fd, address(addr), address(addrLen), flags, 0, 0);
        } finally {
            Reference.reachabilityFence(addr);
            Reference.reachabilityFence(addrLen);
        }
    }

    public static int connect(final int fd, final MemorySegment addr, final int len) {
        try {
            return setupInt(Connect.H, fd, address(addr), len, 0, 0, 0);
        } finally {
            Reference.reachabilityFence(addr);
        }
    }

    /** getsockname; {@code addrLen} is an int in/out. */
    public static int getsockname(final int fd, final MemorySegment addr, final MemorySegment addrLen) {
        try {
            return setupInt(Getsockname.H, fd, address(addr), address(addrLen), 0, 0, 0);
        } finally {
            Reference.reachabilityFence(addr);
            Reference.reachabilityFence(addrLen);
        }
    }

    public static int getpeername(final int fd, final MemorySegment addr, final MemorySegment addrLen) {
        try {
            return setupInt(Getpeername.H, fd, address(addr), address(addrLen), 0, 0, 0);
        } finally {
            Reference.reachabilityFence(addr);
            Reference.reachabilityFence(addrLen);
        }
    }

    public static int setsockopt(final int fd, final int level, final int name, final MemorySegment value,
                                 final int len) {
        try {
            return setupInt(Setsockopt.H, fd, level, name, address(value), len, 0);
        } finally {
            Reference.reachabilityFence(value);
        }
    }

    /** Sets an int socket option (allocates a small confined buffer: setup only). */
    public static int setsockoptInt(final int fd, final int level, final int name, final int value) {
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment v = a.allocateFrom(JAVA_INT, value);
            return setsockopt(fd, level, name, v, 4);
        }
    }

    public static int getsockopt(final int fd, final int level, final int name, final MemorySegment value,
                                 final MemorySegment len) {
        try {
            return setupInt(Getsockopt.H, fd, level, name, address(value), address(len), 0);
        } finally {
            Reference.reachabilityFence(value);
            Reference.reachabilityFence(len);
        }
    }

    public static int shutdown(final int fd, final int how) {
        return setupInt(Shutdown.H, fd, how, 0, 0, 0, 0);
    }

    /** send(2) from a raw address. */
    public static long send(final int fd, final long buf, final long len, final int flags) {
        try {
            final long r = (long) SendPlain.H.invokeExact((long) fd, buf, len, (long) flags, 0L, 0L);
            return r >= 0 ? r : lastErrno() == EAGAIN ? -EAGAIN : setupLong(Send.H, fd, buf, len, flags, 0, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /** recv(2) into a raw address. */
    public static long recv(final int fd, final long buf, final long len, final int flags) {
        try {
            final long r = (long) RecvPlain.H.invokeExact((long) fd, buf, len, (long) flags, 0L, 0L);
            return r >= 0 ? r : lastErrno() == EAGAIN ? -EAGAIN : setupLong(Recv.H, fd, buf, len, flags, 0, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    public static long sendto(final int fd, final long buf, final long len, final int flags,
                              final MemorySegment addr, final int addrLen) {
        try {
            return setupLong(Sendto.H, fd, buf, len, flags, address(addr), addrLen);
        } finally {
            Reference.reachabilityFence(addr);
        }
    }

    /** writev(2); {@code iov} is the raw address of an array of {@link #IOVEC}. */
    public static long writev(final int fd, final long iov, final int count) {
        try {
            final long r = (long) WritevPlain.H.invokeExact((long) fd, iov, (long) count, 0L, 0L, 0L);
            return r >= 0 ? r : lastErrno() == EAGAIN ? -EAGAIN : setupLong(Writev.H, fd, iov, count, 0, 0, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    public static long readv(final int fd, final long iov, final int count) {
        try {
            final long r = (long) ReadvPlain.H.invokeExact((long) fd, iov, (long) count, 0L, 0L, 0L);
            return r >= 0 ? r : lastErrno() == EAGAIN ? -EAGAIN : setupLong(Readv.H, fd, iov, count, 0, 0, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    public static long read(final int fd, final long buf, final long len) {
        try {
            final long r = (long) ReadPlain.H.invokeExact((long) fd, buf, len, 0L, 0L, 0L);
            return r >= 0 ? r : lastErrno() == EAGAIN ? -EAGAIN : setupLong(Read.H, fd, buf, len, 0, 0, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    public static long write(final int fd, final long buf, final long len) {
        try {
            final long r = (long) WritePlain.H.invokeExact((long) fd, buf, len, 0L, 0L, 0L);
            return r >= 0 ? r : lastErrno() == EAGAIN ? -EAGAIN : setupLong(Write.H, fd, buf, len, 0, 0, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- events ----

    public static int epollCreate1(final int flags) {
        return setupInt(EpollCreate1.H, flags, 0, 0, 0, 0, 0);
    }

    public static int epollCtl(final int epfd, final int op, final int fd, final MemorySegment event) {
        try {
            return setupInt(EpollCtl.H, epfd, op, fd, address(event), 0, 0);
        } finally {
            Reference.reachabilityFence(event);
        }
    }

    /** epoll_wait into the raw address {@code events} (an array of {@link #EPOLL_EVENT}). */
    public static int epollWait(final int epfd, final long events, final int max, final int timeoutMs) {
        try {
            final int r = (int) (long) EpollWaitPlain.H.invokeExact((long) epfd, events, (long) max, (long) timeoutMs, 0L, 0L);
            return r >= 0 ? r
                : lastErrno() == EAGAIN ? -EAGAIN : setupInt(EpollWait.H, epfd, events, max, timeoutMs, 0, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    public static int eventfd(final int initval, final int flags) {
        return setupInt(Eventfd.H, initval, flags, 0, 0, 0, 0);
    }

    /** poll(2) over the raw address of {@code nfds} pollfd structs. */
    public static int poll(final long fds, final long nfds, final int timeoutMs) {
        try {
            final int r = (int) (long) PollPlain.H.invokeExact(fds, nfds, (long) timeoutMs, 0L, 0L, 0L);
            return r >= 0 ? r : lastErrno() == EAGAIN ? -EAGAIN : setupInt(Poll.H, fds, nfds, timeoutMs, 0, 0, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- cross-memory attach ----

    /**
     * process_vm_readv(2); iov arguments are raw addresses of {@link #IOVEC} arrays. Returns the bytes
     * read or {@code -errno}.
     *
     * <p>The call that succeeds captures no errno: a capturing downcall may allocate (the JDK slices the
     * capture segment; see ARCHITECTURE, errno capture), and this is cma's per-operation call. A failure
     * transferred nothing (the kernel returns the bytes moved whenever there are any), so it is issued
     * again with errno capture to report why; a retry that succeeds returns its count.
     */
    public static long processVmReadv(final int pid, final long localIov, final long localCount,
                                      final long remoteIov, final long remoteCount) {
        try {
            final long r = (long) ProcessVmReadvPlain.H.invokeExact((long) pid, localIov, localCount, remoteIov,
                remoteCount, 0L);
            return r >= 0 ? r : setupLong(ProcessVmReadv.H, pid, localIov, localCount, remoteIov, remoteCount, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /** process_vm_writev(2), as {@link #processVmReadv} (a failed write wrote nothing: the retry is safe). */
    public static long processVmWritev(final int pid, final long localIov, final long localCount,
                                       final long remoteIov, final long remoteCount) {
        try {
            final long r = (long) ProcessVmWritevPlain.H.invokeExact((long) pid, localIov, localCount, remoteIov,
                remoteCount, 0L);
            return r >= 0 ? r : setupLong(ProcessVmWritev.H, pid, localIov, localCount, remoteIov, remoteCount, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    public static int prctl(final int option, final long a2, final long a3, final long a4, final long a5) {
        return setupInt(Prctl.H, option, a2, a3, a4, a5, 0);
    }

    /** Reads a whole small file such as {@code /proc/sys/...}; null if it does not exist. */
    public static String readSmallFile(final String path) {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of(path)).trim();
        } catch (final java.io.IOException e) {
            return null;
        }
    }

    /** sched_setaffinity(2) of thread {@code tid} (0: the caller) to the CPU mask of {@code len} bytes. */
    public static int schedSetaffinity(final int tid, final long len, final MemorySegment mask) {
        try {
            return setupInt(SchedSetaffinity.H, tid, len, address(mask), 0, 0, 0);
        } finally {
            Reference.reachabilityFence(mask);
        }
    }

    /** sched_getaffinity(2) of thread {@code tid} (0: the caller) into a CPU mask of {@code len} bytes. */
    public static int schedGetaffinity(final int tid, final long len, final MemorySegment mask) {
        try {
            final int r = setupInt(SchedGetaffinity.H, tid, len, address(mask), 0, 0, 0);
            return r < 0 ? r : 0; // the kernel's call returns the mask's size, glibc's 0
        } finally {
            Reference.reachabilityFence(mask);
        }
    }

    /** lseek(2); {@code lseek(fd, 0, SEEK_END)} gives the size of a file. */
    public static long lseek(final int fd, final long offset, final int whence) {
        return setupLong(Lseek.H, fd, offset, whence, 0, 0, 0);
    }

    /**
     * pipe2(2): the two descriptors in {@code fds} (read end at 0, write end at 1).
     *
     * @return 0 or -errno
     */
    public static int pipe2(final int[] fds, final int flags) {
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment pair = a.allocate(JAVA_INT, 2);
            final int r = setupInt(Pipe2.H, pair.address(), flags, 0, 0, 0, 0);
            if (r < 0) {
                return r;
            }
            fds[0] = pair.getAtIndex(JAVA_INT, 0);
            fds[1] = pair.getAtIndex(JAVA_INT, 1);
            return 0;
        }
    }

    /**
     * socketpair(2): two connected sockets of {@code domain} and {@code type} in {@code fds}.
     *
     * @return 0 or -errno
     */
    public static int socketpair(final int domain, final int type, final int[] fds) {
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment pair = a.allocate(JAVA_INT, 2);
            final int r = setupInt(Socketpair.H, domain, type, 0, pair.address(), 0, 0);
            if (r < 0) {
                return r;
            }
            fds[0] = pair.getAtIndex(JAVA_INT, 0);
            fds[1] = pair.getAtIndex(JAVA_INT, 1);
            return 0;
        }
    }

    /**
     * vmsplice(2) of the user memory described by {@code count} {@link #IOVEC}s at the raw address
     * {@code iov} into the pipe {@code fd}: the pipe refers to the pages, it does not copy them.
     */
    public static long vmsplice(final int fd, final long iov, final long count, final int flags) {
        try {
            final long r = (long) VmsplicePlain.H.invokeExact((long) fd, iov, count, (long) flags, 0L, 0L);
            return r >= 0 ? r : lastErrno() == EAGAIN ? -EAGAIN : setupLong(Vmsplice.H, fd, iov, count, flags, 0, 0);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /** splice(2) of up to {@code len} bytes from the pipe {@code in} to {@code out} (no offsets). */
    public static long splice(final int in, final int out, final long len, final int flags) {
        try {
            final long r = (long) SplicePlain.H.invokeExact((long) in, 0L, (long) out, 0L, len, (long) flags);
            return r >= 0 ? r : lastErrno() == EAGAIN ? -EAGAIN : setupLong(Splice.H, in, 0L, out, 0L, len, flags);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /** fcntl(2) with a pointer argument (a struct flock for F_OFD_SETLKW, ...). */
    public static int fcntl(final int fd, final int cmd, final MemorySegment arg) {
        try {
            return setupInt(Fcntl.H, fd, cmd, address(arg), 0, 0, 0);
        } finally {
            Reference.reachabilityFence(arg);
        }
    }

    /** fcntl(2) with an int argument (F_ADD_SEALS, F_GET_SEALS, ...). */
    public static int fcntl(final int fd, final int cmd, final int arg) {
        return setupInt(Fcntl.H, fd, cmd, arg, 0, 0, 0);
    }

    private static final class SetsockoptRaw { static final MethodHandle H = plain("setsockopt"); }

    /**
     * setsockopt with the option value at a raw address and no errno capture: for data-path hints
     * (such as TCP_QUICKACK) whose failure is harmless. Takes no segment, so even a rarely called
     * (not yet compiled) site allocates nothing.
     *
     * @return 0, or -1 on failure (errno not reported)
     */
    public static int setsockoptRaw(final int fd, final int level, final int name, final long value,
                                    final int len) {
        try {
            return (int) (long) SetsockoptRaw.H.invokeExact((long) fd, (long) level, (long) name, value, (long) len, 0L);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /** Value layout helper for callers that pack sockaddr structs. */
    public static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED
        .withOrder(java.nio.ByteOrder.BIG_ENDIAN);
}
