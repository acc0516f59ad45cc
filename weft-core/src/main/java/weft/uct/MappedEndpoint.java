package weft.uct;

import weft.ucs.Status;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.stats.Counter;
import weft.ucs.stats.Counters;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Base for endpoints that reach the peer's registered memory through a mapping in this process (self,
 * shm). The transport checks an access ({@link #access}: a status, nothing on the side) and names the
 * mapping ({@link #mapped}); this class does the zero-copy puts and the gets as copies on the mapping
 * and the atomics as CPU atomics on it, coherent with the owner's own loads, stores and atomics. The
 * short and bcopy puts, the hot paths, stay in the final transport classes.
 */
public abstract class MappedEndpoint extends AbstractEndpoint {
    /** For subclasses. */
    protected MappedEndpoint() {
    }

    /**
     * OK if {@code rkey} is a live key of this transport and {@code [address, address + length)} lies in
     * its memory; else why not (CLOSED or the endpoint's failure, INVALID_RKEY, INVALID_PARAM for a
     * negative length, OUT_OF_RANGE). Range errors are counted as errors.
     */
    protected abstract Status access(RemoteKey rkey, long address, long length);

    /** The mapped memory of a key {@link #access} accepted, addressed at offset {@code address - rkey.base()}. */
    protected abstract MemorySegment mapped(RemoteKey rkey);

    /** The interface's counters. */
    protected abstract Counters counters();

    @Override
    public final Status putZcopy(final IoVector iov, final long remoteAddress, final RemoteKey rkey,
                                 final Completion completion) {
        final Status st = access(rkey, remoteAddress, iov.totalLength());
        if (st != Status.OK) {
            return st;
        }
        final long n = iov.gather(mapped(rkey), remoteAddress - rkey.base());
        counters().increment(Counter.PUTS);
        counters().add(Counter.TX_BYTES, n);
        return Status.OK;
    }

    @Override
    public final Status getShort(final MemorySegment dst, final long offset, final int length,
                                 final long remoteAddress, final RemoteKey rkey) {
        final Status st = access(rkey, remoteAddress, length);
        if (st != Status.OK) {
            return st;
        }
        MemoryCopy.copy(mapped(rkey), remoteAddress - rkey.base(), dst, offset, length);
        counters().increment(Counter.GETS);
        return Status.OK;
    }

    @Override
    public final Status getBcopy(final Unpacker unpacker, final long length, final long remoteAddress,
                                 final RemoteKey rkey, final Completion completion) {
        final Status st = access(rkey, remoteAddress, length);
        if (st != Status.OK) {
            return st;
        }
        unpacker.unpack(mapped(rkey), remoteAddress - rkey.base(), length);
        counters().increment(Counter.GETS);
        return Status.OK;
    }

    @Override
    public final Status getZcopy(final IoVector iov, final long remoteAddress, final RemoteKey rkey,
                                 final Completion completion) {
        final boolean one = iov.count() == 1; // the usual case: one buffer, copied without the list walk
        final long len = one ? iov.length(0) : iov.totalLength();
        final Status st = access(rkey, remoteAddress, len);
        if (st != Status.OK) {
            return st;
        }
        final MemorySegment mem = mapped(rkey);
        if (one) {
            MemoryCopy.copy(mem, remoteAddress - rkey.base(), iov.segment(0), iov.offset(0), len);
        } else {
            iov.scatter(mem, remoteAddress - rkey.base(), len);
        }
        counters().increment(Counter.GETS);
        return Status.OK;
    }

    /** OK if an atomic of {@code size} bytes may go to {@code address} (counted), else why not. */
    private Status atomicAccess(final RemoteKey rkey, final long address, final int size) {
        if (!MemoryAtomics.aligned(address, size)) {
            return Status.INVALID_PARAM;
        }
        final Status st = access(rkey, address, size);
        if (st == Status.OK) {
            counters().increment(Counter.ATOMICS);
        }
        return st;
    }

    @Override
    public final Status atomic64Post(final AtomicOp op, final long value, final long remoteAddress,
                                     final RemoteKey rkey) {
        if (!op.postable()) {
            return Status.INVALID_PARAM;
        }
        final Status st = atomicAccess(rkey, remoteAddress, 8);
        if (st != Status.OK) {
            return st;
        }
        final MemorySegment mem = mapped(rkey);
        MemoryAtomics.fetch64(op, mem, remoteAddress - rkey.base(), value);
        return Status.OK;
    }

    /**
     * The copy into the mapping (any length), then the signal's CPU atomic, which orders the copy's stores before
     * it.
     */
    @Override
    public final Status putShortSignal(final MemorySegment src, final long offset, final int length,
                                       final long remoteAddress, final RemoteKey rkey, final AtomicOp signalOp,
                                       final long signal, final long signalAddress, final RemoteKey signalKey) {
        if (!signalOp.postable() || !MemoryAtomics.aligned(signalAddress, 8) || offset < 0 || length < 0
            || length > src.byteSize() - offset) {
            return Status.INVALID_PARAM;
        }
        Status st = access(signalKey, signalAddress, 8);
        if (st == Status.OK) {
            st = access(rkey, remoteAddress, length);
        }
        if (st != Status.OK) {
            return st;
        }
        MemoryCopy.copy(src, offset, mapped(rkey), remoteAddress - rkey.base(), length);
        counters().increment(Counter.PUTS);
        counters().add(Counter.TX_BYTES, length);
        return atomic64Post(signalOp, signal, signalAddress, signalKey);
    }

    @Override
    public final Status atomic32Post(final AtomicOp op, final int value, final long remoteAddress,
                                     final RemoteKey rkey) {
        if (!op.postable()) {
            return Status.INVALID_PARAM;
        }
        final Status st = atomicAccess(rkey, remoteAddress, 4);
        if (st != Status.OK) {
            return st;
        }
        final MemorySegment mem = mapped(rkey);
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
        final Status st = atomicAccess(rkey, remoteAddress, 8);
        if (st != Status.OK) {
            return st;
        }
        final MemorySegment mem = mapped(rkey);
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
        final Status st = atomicAccess(rkey, remoteAddress, 4);
        if (st != Status.OK) {
            return st;
        }
        final MemorySegment mem = mapped(rkey);
        result.set(ValueLayout.JAVA_INT_UNALIGNED, resultOffset,
            MemoryAtomics.fetch32(op, mem, remoteAddress - rkey.base(), value));
        return Status.OK;
    }

    @Override
    public final Status atomic64Cswap(final long compare, final long swap, final MemorySegment result,
                                      final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                      final Completion completion) {
        final Status st = atomicAccess(rkey, remoteAddress, 8);
        if (st != Status.OK) {
            return st;
        }
        final MemorySegment mem = mapped(rkey);
        result.set(ValueLayout.JAVA_LONG_UNALIGNED, resultOffset,
            MemoryAtomics.cswap64(mem, remoteAddress - rkey.base(), compare, swap));
        return Status.OK;
    }

    @Override
    public final Status atomic32Cswap(final int compare, final int swap, final MemorySegment result,
                                      final long resultOffset, final long remoteAddress, final RemoteKey rkey,
                                      final Completion completion) {
        final Status st = atomicAccess(rkey, remoteAddress, 4);
        if (st != Status.OK) {
            return st;
        }
        final MemorySegment mem = mapped(rkey);
        result.set(ValueLayout.JAVA_INT_UNALIGNED, resultOffset,
            MemoryAtomics.cswap32(mem, remoteAddress - rkey.base(), compare, swap));
        return Status.OK;
    }
}
