package weft.uct;

import weft.ucs.Status;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Base for endpoints that reach the peer's registered memory through a mapping in this process (self,
 * shm): a remote atomic is a CPU atomic on the mapping, coherent with the owner's own loads, stores and
 * atomics. The transport resolves a key and checks the range ({@link #target}); this class does the rest.
 */
public abstract class MappedEndpoint extends AbstractEndpoint {
    /** Why the last {@link #target} returned null. */
    protected Status lastError = Status.OK;

    /** For subclasses. */
    protected MappedEndpoint() {
    }

    /**
     * The memory of {@code rkey} if {@code [address, address + length)} lies in it and the key is live,
     * addressed at offset {@code address - rkey.base()}; else null, with the reason in {@link #lastError}.
     */
    protected abstract MemorySegment target(RemoteKey rkey, long address, long length);

    /** Counts one atomic operation (the interface's counters). */
    protected abstract void countAtomic();

    private MemorySegment atomicTarget(final RemoteKey rkey, final long address, final int size) {
        if (!MemoryAtomics.aligned(address, size)) {
            lastError = Status.INVALID_PARAM;
            return null;
        }
        final MemorySegment mem = target(rkey, address, size);
        if (mem != null) {
            countAtomic();
        }
        return mem;
    }

    @Override
    public final Status atomic64Post(final AtomicOp op, final long value, final long remoteAddress,
                                     final RemoteKey rkey) {
        if (op.bit() > AtomicOp.XOR.bit()) {
            return Status.INVALID_PARAM;
        }
        final MemorySegment mem = atomicTarget(rkey, remoteAddress, 8);
        if (mem == null) {
            return lastError;
        }
        MemoryAtomics.fetch64(op, mem, remoteAddress - rkey.base(), value);
        return Status.OK;
    }

    @Override
    public final Status atomic32Post(final AtomicOp op, final int value, final long remoteAddress,
                                     final RemoteKey rkey) {
        if (op.bit() > AtomicOp.XOR.bit()) {
            return Status.INVALID_PARAM;
        }
        final MemorySegment mem = atomicTarget(rkey, remoteAddress, 4);
        if (mem == null) {
            return lastError;
        }
        MemoryAtomics.fetch32(op, mem, remoteAddress - rkey.base(), value);
        return Status.OK;
    }

    @Override
    public final Status atomic64Fetch(final AtomicOp op, final long value, final MemorySegment result,
                                      final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                      final Completion completion) {
        if (op == AtomicOp.CSWAP) {
            return Status.INVALID_PARAM;
        }
        final MemorySegment mem = atomicTarget(rkey, remoteAddress, 8);
        if (mem == null) {
            return lastError;
        }
        result.set(ValueLayout.JAVA_LONG_UNALIGNED, resultOffset,
            MemoryAtomics.fetch64(op, mem, remoteAddress - rkey.base(), value));
        return Status.OK;
    }

    @Override
    public final Status atomic32Fetch(final AtomicOp op, final int value, final MemorySegment result,
                                      final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                      final Completion completion) {
        if (op == AtomicOp.CSWAP) {
            return Status.INVALID_PARAM;
        }
        final MemorySegment mem = atomicTarget(rkey, remoteAddress, 4);
        if (mem == null) {
            return lastError;
        }
        result.set(ValueLayout.JAVA_INT_UNALIGNED, resultOffset,
            MemoryAtomics.fetch32(op, mem, remoteAddress - rkey.base(), value));
        return Status.OK;
    }

    @Override
    public final Status atomic64Cswap(final long compare, final long swap, final MemorySegment result,
                                      final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                      final Completion completion) {
        final MemorySegment mem = atomicTarget(rkey, remoteAddress, 8);
        if (mem == null) {
            return lastError;
        }
        result.set(ValueLayout.JAVA_LONG_UNALIGNED, resultOffset,
            MemoryAtomics.cswap64(mem, remoteAddress - rkey.base(), compare, swap));
        return Status.OK;
    }

    @Override
    public final Status atomic32Cswap(final int compare, final int swap, final MemorySegment result,
                                      final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                      final Completion completion) {
        final MemorySegment mem = atomicTarget(rkey, remoteAddress, 4);
        if (mem == null) {
            return lastError;
        }
        result.set(ValueLayout.JAVA_INT_UNALIGNED, resultOffset,
            MemoryAtomics.cswap32(mem, remoteAddress - rkey.base(), compare, swap));
        return Status.OK;
    }
}
