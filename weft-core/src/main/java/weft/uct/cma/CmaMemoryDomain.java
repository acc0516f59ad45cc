package weft.uct.cma;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;
import weft.uct.AbstractMemoryDomain;
import weft.uct.AbstractRemoteKey;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.RkeyCodec;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory domain of the cma transport. Registration pins nothing: the kernel reads a peer's memory
 * by virtual address, so a registration is only a record (id, base, length) that a remote key
 * names. Registering a region that is already registered (or lies inside one) is a cache lookup.
 *
 * <p>Remote key body (inside the {@link RkeyCodec} envelope, little endian):
 * <pre>
 *  0        4                12               20               28
 *  +--------+----------------+----------------+----------------+
 *  | pid    | base           | length         | registration id|
 *  +--------+----------------+----------------+----------------+
 *    u32       u64              u64              u64
 * </pre>
 * The initiator bounds-checks every access against {@code [base, base + length)}; the kernel cannot
 * revoke access, so a peer must not use a key after the owner deregistered (as in UCX). Keys are not
 * symmetric (no {@link weft.uct.MemoryDomainAttributes#SYMMETRIC_RKEY}): they name the owner's pid.
 */
final class CmaMemoryDomain extends AbstractMemoryDomain<AbstractMemoryDomain.Region> {
    static final String NAME = "cma";
    static final int BODY = 4 + 8 + 8 + 8;
    private static final int PID = LibC.getpid();

    private final AtomicLong ids = new AtomicLong();

    CmaMemoryDomain() {
        super(NAME);
        newCache(seg -> new Region(ids.incrementAndGet(), seg));
    }

    /** An unpacked key: which process, which range. Immutable apart from {@link #close()}. */
    static final class Key extends AbstractRemoteKey {
        /** Keys in a total order: interchangeable keys compare equal. */
        static final Comparator<Key> ORDER = Comparator.<Key>comparingInt(k -> k.pid)
            .thenComparing(Key::base, Long::compareUnsigned).thenComparingLong(Key::length)
            .thenComparingLong(k -> k.id);
        final int pid;
        final long id;
        private volatile boolean closed;

        Key(final int pid, final long base, final long length, final long id) {
            super(base, length);
            this.pid = pid;
            this.id = id;
        }

        boolean isClosed() {
            return closed;
        }

        @Override
        public MemorySegment ptr(final long address, final long len) {
            throw new WeftException(Status.UNSUPPORTED, "cma: remote memory cannot be mapped (no rkey_ptr)");
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Override
    public MemoryDomainAttributes attributes() {
        return new MemoryDomainAttributes(MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.REG
            | MemoryDomainAttributes.NEED_RKEY, Long.MAX_VALUE, Long.MAX_VALUE, 50, 0,
            RkeyCodec.pack(NAME, new byte[BODY]).length);
    }

    @Override
    public byte[] packRkey(final MemoryHandle handle) {
        final Handle<Region> h = packable(handle);
        final ByteBuffer b = ByteBuffer.allocate(BODY).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PID).putLong(h.segment().address()).putLong(h.segment().byteSize()).putLong(h.region().id());
        return RkeyCodec.pack(NAME, b.array());
    }

    @Override
    public RemoteKey unpackRkey(final byte[] packed) {
        return RkeyCodec.read(NAME, packed, b -> {
            final int pid = b.getInt();
            final long base = b.getLong();
            final long length = b.getLong();
            final long id = b.getLong();
            if (pid <= 0) {
                throw RkeyCodec.invalid(NAME, "bad process id " + pid + " in remote key");
            }
            if (length < 0 || base + length < base) {
                throw RkeyCodec.invalid(NAME, "remote key region [0x" + Long.toHexString(base) + ", +" + length
                    + ") wraps around the address space");
            }
            return new Key(pid, base, length, id);
        });
    }

    @Override
    public int compareRkeys(final RemoteKey a, final RemoteKey b) {
        if (!(a instanceof Key x) || !(b instanceof Key y)) {
            throw new WeftException(Status.INVALID_RKEY, "cma: can only compare cma remote keys");
        }
        return Integer.signum(Key.ORDER.compare(x, y));
    }

    @Override
    protected void revoked(final Region r) {
        r.revoke();
    }
}
