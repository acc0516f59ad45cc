package weft.uct.shm;

import weft.ucs.sys.ProcessLiveness;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.memory.SharedMemory;
import weft.ucs.sys.LibC;
import weft.uct.AbstractRemoteKey;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;
import weft.uct.RkeyCodec;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory domain of the shm transport. Allocation-only, like UCX's posix mapper: every
 * {@link #allocate} is its own sealed memory file that same-node peers map; {@link #register} of
 * arbitrary memory is UNSUPPORTED (the cma transport serves registered memory).
 *
 * <p>Keys cannot be symmetric (no {@link MemoryDomainAttributes#SYMMETRIC_RKEY}): a key names one
 * process's memory file (pid, fd, start time), and unpacking it maps that file here, a local
 * resource that belongs to that peer's key alone.
 *
 * <p>Packed key body (40 B, little endian): {@code u32 pid, u32 fd, u64 owner start time,
 * u64 file id, u64 base, u64 length}. Unpacking maps the file (cached per (pid, fd, file) with
 * reference counts) and checks first that the owner and the file are still there: a foreign,
 * truncated or stale key is INVALID_RKEY, never a crash. Thread safe.
 */
final class ShmMemoryDomain implements MemoryDomain {
    static final String NAME = "shm";
    static final int PID = LibC.getpid();
    static final long START_TIME = ProcessLiveness.startTime(PID);
    private static final int BODY = 4 + 4 + 8 + 8 + 8 + 8;
    private static final AtomicLong FILE_IDS = new AtomicLong();

    private final Map<Long, Region> regions = new HashMap<>();
    private final Map<AttachmentKey, Attachment> attachments = new HashMap<>();
    private final Map<Key, Boolean> keys = new IdentityHashMap<>();

    /** Unique name of memory file {@code id} of process {@code pid} started at {@code startTime}. */
    static String fileName(final int pid, final long startTime, final long id) {
        return "weft-shm-" + pid + "-" + startTime + "-" + id;
    }

    /** Creates a new memory file of this process; the caller owns it. */
    static SharedMemory createFile(final long size) {
        return createFile(size, 0);
    }

    /** As {@link #createFile(long)}, mapped at {@code address} here when it is not 0. */
    static SharedMemory createFile(final long size, final long address) {
        final long id = FILE_IDS.incrementAndGet();
        return SharedMemory.create(fileName(PID, START_TIME, id), size, address);
    }

    /** The file id encoded in a name made by {@link #fileName}. */
    static long fileId(final SharedMemory m) {
        final String n = m.name();
        return Long.parseLong(n.substring(n.lastIndexOf('-') + 1));
    }

    private record AttachmentKey(int pid, int fd, String name) {
        // spelled out: a record's own are linked on first use by generating method handle classes (start-up cost)
        @Override
        public boolean equals(final Object o) {
            return o instanceof AttachmentKey k && pid == k.pid && fd == k.fd && name.equals(k.name);
        }

        @Override
        public int hashCode() {
            return (pid * 31 + fd) * 31 + name.hashCode();
        }
    }

    /** A peer's memory file mapped here, shared by every key and endpoint that uses it. */
    static final class Attachment {
        final AttachmentKey key;
        final SharedMemory memory;
        int refs;

        Attachment(final AttachmentKey key, final SharedMemory memory) {
            this.key = key;
            this.memory = memory;
        }

        MemorySegment segment() {
            return memory.segment();
        }
    }

    /**
     * Maps (or reuses the mapping of) file {@code id} of {@code pid}, fd {@code fd}, at least
     * {@code size} bytes.
     *
     * @throws WeftException INVALID_ADDRESS if the owner or file is gone or does not match
     */
    synchronized Attachment attach(final int pid, final long startTime, final int fd, final long id,
                                   final long size) {
        final String name = fileName(pid, startTime, id);
        if (pid <= 0 || fd < 0 || size < 0 || startTime < 0) {
            throw new WeftException(Status.INVALID_ADDRESS, "shm: bad memory file reference " + name);
        }
        final AttachmentKey k = new AttachmentKey(pid, fd, name);
        Attachment a = attachments.get(k);
        if (a != null) {
            if (!SharedMemory.isLive(pid, fd, name)) {
                throw new WeftException(Status.INVALID_ADDRESS, "shm: memory file " + name + " was released by its owner");
            }
            if (a.memory.size() < size) {
                throw new WeftException(Status.INVALID_ADDRESS, "shm: memory file " + name + " is smaller than "
                    + size + " bytes");
            }
        } else {
            a = new Attachment(k, SharedMemory.attach(pid, fd, name, size));
            attachments.put(k, a);
        }
        a.refs++;
        return a;
    }

    /** Drops one reference; unmaps on the last. */
    synchronized void detach(final Attachment a) {
        if (--a.refs == 0) {
            attachments.remove(a.key);
            a.memory.close();
        }
    }

    /** Memory this domain allocated. */
    static final class Region implements MemoryHandle {
        final ShmMemoryDomain md;
        final SharedMemory memory;
        final long fileId;
        final MemorySegment segment;
        final MemorySegment state;

        Region(final ShmMemoryDomain md, final SharedMemory memory, final long length) {
            this.md = md;
            this.memory = memory;
            this.fileId = fileId(memory);
            this.segment = memory.segment().asSlice(0, length);
            this.state = ShmRegionDescriptor.state(memory.segment(), length);
            ShmRegionDescriptor.publishLive(state);
        }

        @Override
        public MemorySegment segment() {
            return segment;
        }

        @Override
        public MemoryDomain domain() {
            return md;
        }
    }

    /** An unpacked key: a local mapping of the peer's region. */
    static final class Key extends AbstractRemoteKey {
        /** Keys in a total order: interchangeable keys compare equal. */
        static final Comparator<Key> ORDER = Comparator.<Key>comparingInt(k -> k.pid).thenComparingInt(k -> k.fd)
            .thenComparingLong(Key::base).thenComparingLong(Key::length).thenComparingLong(k -> k.fileId);
        final ShmMemoryDomain md;
        final int pid;
        final int fd;
        final long fileId;
        private Attachment attachment;
        /** The mapped region; null once closed (accesses then answer INVALID_RKEY). */
        MemorySegment view;
        /** The owner's state word ({@link ShmRegionDescriptor}): accesses check it is still LIVE. */
        final MemorySegment state;

        Key(final ShmMemoryDomain md, final int pid, final int fd, final long fileId, final long base,
            final long length, final Attachment attachment) {
            super(base, length);
            this.md = md;
            this.pid = pid;
            this.fd = fd;
            this.fileId = fileId;
            this.attachment = attachment;
            this.view = attachment.segment().asSlice(0, length);
            this.state = ShmRegionDescriptor.state(attachment.segment(), length);
        }

        @Override
        public MemorySegment ptr(final long address, final long len) {
            final MemorySegment v = view;
            if (v == null) {
                throw new WeftException(Status.INVALID_RKEY, "shm: remote key is closed");
            }
            if (!ShmRegionDescriptor.isLive(state)) {
                throw new WeftException(Status.INVALID_RKEY, "shm: the owner unmapped this memory");
            }
            if (!contains(address, len)) {
                throw new WeftException(Status.OUT_OF_RANGE, "shm: [0x" + Long.toHexString(address) + ", +" + len
                    + ") is outside the region [0x" + Long.toHexString(base()) + ", +" + length() + ")");
            }
            return v.asSlice(address - base(), len);
        }

        @Override
        public void close() {
            md.closeKey(this);
        }

        void release() {
            if (attachment != null) {
                view = null;
                md.detach(attachment);
                attachment = null;
            }
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public MemoryDomainAttributes attributes() {
        return new MemoryDomainAttributes(MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.NEED_RKEY
            | MemoryDomainAttributes.RKEY_PTR | MemoryDomainAttributes.ALLOC_SHARED | MemoryDomainAttributes.FIXED,
            Long.MAX_VALUE, 0, 0, 0, 4 + 1 + 1 + NAME.length() + 2 + BODY);
    }

    @Override
    public synchronized MemoryHandle allocate(final long length) {
        if (length < 0) {
            throw new WeftException(Status.INVALID_PARAM, "shm: negative allocation length " + length);
        }
        final Region r = new Region(this, createFile(ShmRegionDescriptor.fileSize(length)), length);
        regions.put(r.fileId, r);
        return r;
    }

    /**
     * A memory file mapped at {@code address} in this process (peers map it wherever their kernel
     * puts it, unless they map their own file at the same address: that is what makes a symmetric heap).
     */
    @Override
    public synchronized MemoryHandle allocateFixed(final long address, final long length) {
        if (length < 0) {
            throw new WeftException(Status.INVALID_PARAM, "shm: negative allocation length " + length);
        }
        final Region r = new Region(this, createFile(ShmRegionDescriptor.fileSize(length), address), length);
        regions.put(r.fileId, r);
        return r;
    }

    @Override
    public MemoryHandle register(final MemorySegment segment) {
        throw new WeftException(Status.UNSUPPORTED, "shm: the memory domain only allocates (use allocate, or the cma "
            + "transport for registered memory)");
    }

    @Override
    public synchronized void deregister(final MemoryHandle handle) {
        if (!(handle instanceof Region r) || r.md != this) {
            throw new WeftException(Status.INVALID_PARAM, "shm: handle does not belong to this domain");
        }
        if (regions.remove(r.fileId) != null) {
            ShmRegionDescriptor.revoke(r.state); // peers' accesses fail from now on
            r.memory.close(); // peers that mapped it keep their mapping valid (the file lives on)
        }
    }

    @Override
    public synchronized byte[] packRkey(final MemoryHandle handle) {
        if (!(handle instanceof Region r) || r.md != this || !regions.containsKey(r.fileId)) {
            throw new WeftException(Status.INVALID_PARAM, "shm: cannot pack a key for a foreign or released handle");
        }
        final ByteBuffer b = ByteBuffer.allocate(BODY).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PID).putInt(r.memory.fd()).putLong(START_TIME).putLong(r.fileId).putLong(r.segment.address())
            .putLong(r.segment.byteSize());
        return RkeyCodec.pack(NAME, b.array());
    }

    @Override
    public RemoteKey unpackRkey(final byte[] packed) {
        return RkeyCodec.read(NAME, packed, b -> {
            final int pid = b.getInt();
            final int fd = b.getInt();
            final long start = b.getLong();
            final long id = b.getLong();
            final long base = b.getLong();
            final long len = b.getLong();
            // fileSize wraps around for a length within two pages of Long.MAX_VALUE
            if (pid <= 0 || fd < 0 || len < 0 || start < 0 || ShmRegionDescriptor.fileSize(len) < len) {
                throw RkeyCodec.invalid(NAME, "malformed key (pid " + pid + ", fd " + fd + ", length " + len + ")");
            }
            if (ProcessLiveness.startTime(pid) != start) {
                throw RkeyCodec.invalid(NAME, "the owner process " + pid + " of the key is gone");
            }
            final Attachment a;
            try {
                a = attach(pid, start, fd, id, ShmRegionDescriptor.fileSize(len));
            } catch (final WeftException e) {
                throw RkeyCodec.invalid(NAME, "stale key: " + e.getMessage());
            }
            if (!ShmRegionDescriptor.isLive(ShmRegionDescriptor.state(a.segment(), len))) {
                detach(a);
                throw RkeyCodec.invalid(NAME, "stale key: the owner unmapped memory file " + a.key.name());
            }
            final Key k = new Key(this, pid, fd, id, base, len, a);
            synchronized (this) {
                keys.put(k, Boolean.TRUE);
            }
            return k;
        });
    }

    synchronized void closeKey(final Key k) {
        if (keys.remove(k) != null) {
            k.release();
        }
    }

    @Override
    public int compareRkeys(final RemoteKey a, final RemoteKey b) {
        if (!(a instanceof Key x) || !(b instanceof Key y)) {
            throw new WeftException(Status.INVALID_RKEY, "shm: compareRkeys needs two shm keys");
        }
        return Integer.signum(Key.ORDER.compare(x, y));
    }

    /** Number of peer files mapped now (tests). */
    synchronized int attachmentCount() {
        return attachments.size();
    }

    @Override
    public synchronized void close() {
        for (final Key k : new ArrayList<>(keys.keySet())) {
            closeKey(k);
        }
        for (final Region r : new ArrayList<>(regions.values())) {
            deregister(r);
        }
    }
}
