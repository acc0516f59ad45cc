package weft.uct.self;

import weft.ucs.Status;
import weft.ucs.memory.MemoryCopy;
import weft.ucs.stats.Counter;
import weft.ucs.stats.Counters;
import weft.uct.Completion;
import weft.uct.Interface;
import weft.uct.IoVector;
import weft.uct.MappedEndpoint;
import weft.uct.MemoryAtomics;
import weft.uct.Packer;
import weft.uct.PendingRequest;
import weft.uct.RemoteKey;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Endpoint of the self transport: everything completes in the call (OK), nothing is queued. */
final class SelfEndpoint extends MappedEndpoint {
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED
        .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private final SelfInterface iface;
    private boolean closed;

    SelfEndpoint(final SelfInterface iface) {
        this.iface = iface;
    }

    @Override
    public Interface iface() {
        return iface;
    }

    @Override
    protected boolean hasResources() {
        return true;
    }

    int dispatchPending() {
        return pending.isEmpty() ? 0 : pending.dispatch();
    }

    private Status amCheck(final int id) {
        if (closed) {
            return Status.CLOSED;
        }
        if (id < 0 || id >= Interface.AM_ID_COUNT) {
            return Status.INVALID_PARAM;
        }
        return Status.OK;
    }

    @Override
    public Status amShort(final int id, final long header, final MemorySegment payload, final long offset,
                          final int length) {
        final Status st = amCheck(id);
        if (st != Status.OK) {
            return st;
        }
        if (length < 0 || length > SelfInterface.MAX_SHORT) {
            return Status.INVALID_PARAM;
        }
        final MemorySegment buf = iface.enter();
        if (buf == null) {
            return Status.NO_RESOURCE;
        }
        try {
            buf.set(LONG_LE, 0, header);
            MemorySegment.copy(payload, offset, buf, 8, length);
            count(length + 8L);
            return iface.deliver(id, buf, length + 8L);
        } finally {
            iface.leave();
        }
    }

    private void count(final long bytes) {
        iface.counters().increment(Counter.TX_MESSAGES);
        iface.counters().add(Counter.TX_BYTES, bytes);
    }

    @Override
    public long amBcopy(final int id, final Packer packer) {
        final Status st = amCheck(id);
        if (st != Status.OK) {
            return st.code();
        }
        final MemorySegment buf = iface.enter();
        if (buf == null) {
            return Status.NO_RESOURCE.code();
        }
        try {
            final long len = packer.pack(buf, 0, iface.segSize);
            if (len < 0 || len > iface.segSize) {
                return Status.INVALID_PARAM.code();
            }
            count(len);
            final Status d = iface.deliver(id, buf, len);
            return d == Status.OK ? len : d.code();
        } finally {
            iface.leave();
        }
    }

    @Override
    public Status amZcopy(final int id, final MemorySegment header, final long headerOffset, final int headerLength,
                          final IoVector iov, final Completion completion) {
        final Status st = amCheck(id);
        if (st != Status.OK) {
            return st;
        }
        final long total = headerLength + iov.totalLength();
        if (headerLength < 0 || total > iface.segSize) {
            return Status.INVALID_PARAM;
        }
        final MemorySegment buf = iface.enter();
        if (buf == null) {
            return Status.NO_RESOURCE;
        }
        try {
            MemoryCopy.copy(header, headerOffset, buf, 0, headerLength);
            iov.gather(buf, headerLength);
            count(total);
            return iface.deliver(id, buf, total);
        } finally {
            iface.leave();
        }
    }

    @Override
    protected Status access(final RemoteKey rkey, final long address, final long len) {
        if (closed) {
            return Status.CLOSED;
        }
        if (!(rkey instanceof SelfMemoryDomain.Key k) || k.region.md != iface.md || k.memory() == null) {
            return Status.INVALID_RKEY;
        }
        final Status r = MemoryAtomics.checkRange(rkey, address, len);
        if (r != Status.OK) {
            iface.counters().increment(Counter.ERRORS);
        }
        return r;
    }

    @Override
    protected MemorySegment mapped(final RemoteKey rkey) {
        return ((SelfMemoryDomain.Key) rkey).view;
    }

    @Override
    protected Counters counters() {
        return iface.counters();
    }

    @Override
    public Status putShort(final MemorySegment src, final long offset, final int length, final long remoteAddress,
                           final RemoteKey rkey) {
        final Status st = access(rkey, remoteAddress, length);
        if (st != Status.OK) {
            return st;
        }
        MemoryCopy.copy(src, offset, mapped(rkey), remoteAddress - rkey.base(), length);
        iface.counters().increment(Counter.PUTS);
        return Status.OK;
    }

    @Override
    public long putBcopy(final Packer packer, final long remoteAddress, final RemoteKey rkey) {
        final MemorySegment buf = iface.enter();
        if (buf == null) {
            return Status.NO_RESOURCE.code();
        }
        try {
            final long len = packer.pack(buf, 0, iface.segSize);
            final Status st = access(rkey, remoteAddress, len);
            if (st != Status.OK) {
                return st.code();
            }
            MemoryCopy.copy(buf, 0, mapped(rkey), remoteAddress - rkey.base(), len);
            iface.counters().increment(Counter.PUTS);
            return len;
        } finally {
            iface.leave();
        }
    }

    @Override
    public Status flush(final int flags, final Completion completion) {
        return closed ? Status.CLOSED : Status.OK;
    }

    @Override
    public Status check() {
        return closed || iface.isClosed() ? Status.CLOSED : Status.OK;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pending.purge(PendingRequest::dispatch);
        iface.endpointClosed(this);
    }
}
