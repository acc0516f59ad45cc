package weft.uct.cma;

import weft.ucs.sys.NodeIdentity;
import weft.ucs.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Decides once, at start-up, whether cross-memory attach works in this process, so that a refusal
 * (Yama ptrace scope, missing CAP_SYS_PTRACE, seccomp in a container) makes the transport
 * unavailable instead of failing the first transfer. Also reads the identity facts the addresses
 * carry: boot id, pid namespace and process start times.
 */
final class CmaProbe {
    static final String PTRACE_SCOPE_FILE = "/proc/sys/kernel/yama/ptrace_scope";
    private static final int CAP_SYS_PTRACE = 19;

    private CmaProbe() {
    }

    /**
     * Checks the permission policy and then really moves bytes within this process.
     *
     * @param forceUnavailable behave as if the kernel refused (tests, or an administrator's choice)
     * @return null when usable, else the reason
     */
    static String probe(final boolean forceUnavailable) {
        if (forceUnavailable) {
            return "disabled by WEFT_CMA_FORCE_UNAVAILABLE";
        }
        final String policy = checkPtraceScope(LibC.readSmallFile(PTRACE_SCOPE_FILE), hasCapSysPtrace());
        if (policy != null) {
            return policy;
        }
        if (NodeIdentity.bootId() == null) {
            return "cannot read /proc/sys/kernel/random/boot_id to identify this node";
        }
        return selfTransfer();
    }

    /**
     * Applies the Yama ptrace policy: 0 allows same-uid peers, 1 needs us to declare any process our
     * tracer, 2 needs CAP_SYS_PTRACE, 3 forbids attach entirely.
     *
     * @param scope     contents of the ptrace_scope file, or null when Yama is absent
     * @param capPtrace true if this process holds CAP_SYS_PTRACE
     * @return null if allowed, else the reason
     */
    static String checkPtraceScope(final String scope, final boolean capPtrace) {
        if (scope == null) {
            return null;
        }
        switch (scope.trim()) {
            case "0":
                return null;
            case "1": {
                final int r = LibC.prctl(LibC.PR_SET_PTRACER, LibC.PR_SET_PTRACER_ANY, 0, 0, 0);
                return r == 0 ? null : "ptrace_scope is 1 and prctl(PR_SET_PTRACER, ANY) failed: "
                    + LibC.strerror(-r);
            }
            case "2":
                return capPtrace ? null : "ptrace_scope is 2 (admin-only attach) and this process lacks CAP_SYS_PTRACE";
            case "3":
                return "ptrace_scope is 3: cross-memory attach is disabled on this machine";
            default:
                return "unrecognised " + PTRACE_SCOPE_FILE + " value '" + scope.trim() + "'";
        }
    }

    /** True if CapEff in /proc/self/status holds CAP_SYS_PTRACE (root normally does). */
    static boolean hasCapSysPtrace() {
        final String status = LibC.readSmallFile("/proc/self/status");
        if (status == null) {
            return false;
        }
        for (final String line : status.split("\n")) {
            if (line.startsWith("CapEff:")) {
                try {
                    final long caps = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                    return (caps & (1L << CAP_SYS_PTRACE)) != 0;
                } catch (final NumberFormatException e) {
                    return false;
                }
            }
        }
        return false;
    }

    /** Reads and writes 8 bytes of our own memory through the kernel; null if both worked. */
    static String selfTransfer() {
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment src = a.allocate(JAVA_LONG);
            final MemorySegment dst = a.allocate(JAVA_LONG);
            final MemorySegment iov = a.allocate(LibC.IOVEC, 2);
            src.set(JAVA_LONG, 0, 0x57454654434D4131L);
            iov.set(JAVA_LONG, 0, dst.address());
            iov.set(JAVA_LONG, 8, 8);
            iov.set(JAVA_LONG, 16, src.address());
            iov.set(JAVA_LONG, 24, 8);
            final int pid = LibC.getpid();
            long r = LibC.processVmReadv(pid, iov.address(), 1, iov.address() + 16, 1);
            if (r != 8 || dst.get(JAVA_LONG, 0) != src.get(JAVA_LONG, 0)) {
                return "process_vm_readv on this process's own memory was refused: "
                    + (r < 0 ? LibC.strerror((int) -r) + " (errno " + -r + ")" : "moved " + r + " of 8 bytes");
            }
            src.set(JAVA_LONG, 0, ~src.get(JAVA_LONG, 0));
            // write src (local) into dst (remote = ourselves)
            iov.set(JAVA_LONG, 0, src.address());
            iov.set(JAVA_LONG, 16, dst.address());
            r = LibC.processVmWritev(pid, iov.address(), 1, iov.address() + 16, 1);
            if (r != 8 || dst.get(JAVA_LONG, 0) != src.get(JAVA_LONG, 0)) {
                return "process_vm_writev on this process's own memory was refused: "
                    + (r < 0 ? LibC.strerror((int) -r) + " (errno " + -r + ")" : "moved " + r + " of 8 bytes");
            }
            return null;
        } catch (final RuntimeException | LinkageError e) {
            return "process_vm_readv is not callable: " + e;
        }
    }

}
