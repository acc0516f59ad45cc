package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.Transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Memory made accessible to peers: allocated by the best memory domain (a shared memfd when same-node
 * peers can map it) or registered from an existing segment, and registered with every other memory
 * domain of the context that can register memory, so that any lane can reach it. {@link #packRkey()}
 * gives the bytes a peer turns into an {@link Rkey} with {@link Endpoint#unpackRkey(byte[])}.
 *
 * <pre>{@code
 * try (MemoryMap heap = ctx.memMap(1 << 20, MemoryMap.ALLOCATE)) {
 *     byte[] key = heap.packRkey();   // send it, with heap.address(), to the peers
 *     heap.segment().set(JAVA_LONG, 0, 42);
 * }
 * }</pre>
 *
 * <p>Packed key layout (little endian): {@code "WFRK" u8 version u8 flags u64 address u64 length u8 n}
 * then n × {@code u8 len + transport name, u16 len + that transport's packed key}.
 */
public final class MemoryMap implements AutoCloseable {
    /** Allocate the memory (else register the given segment). */
    public static final int ALLOCATE = 1;
    /**
     * Allocate at a fixed virtual address: the one given to {@link Context#memMap(long, long, int)}, or
     * the context's next one in its reserved range ({@code WEFT_MEM_FIXED_BASE}, 2 MiB steps), so that
     * PEs that make the same FIXED maps in the same order see them at the same address (remote address
     * == local address). Never replaces a mapping: a range in use is INVALID_ADDRESS. Memory comes from
     * a shared domain that can map at an address (shm: peers on the node map it too), else it is private
     * anonymous memory registered with the other domains. Allocation only.
     */
    public static final int FIXED = 1 << 1;
    /**
     * Symmetric remote key: the memory is mapped identically by every PE (same length and order of
     * symmetric maps, same address, e.g. with {@link #FIXED}); transports whose keys can be equal across
     * processes (tcp) then pack byte-equal keys, and a peer holds one unpacked copy for all PEs (see
     * {@link Rkey#compare(Rkey, Rkey)}). Transports whose key names one process's memory (shm, cma,
     * self) are not affected: {@link #symmetricDomains()} says which domains honour it.
     */
    public static final int SYMMETRIC_RKEY = 1 << 2;

    static final int MAGIC = 0x4b524657; // "WFRK" little endian
    static final int VERSION = 1;

    private final Context context;
    private final int flags;
    private final MemorySegment segment;
    private final List<MemoryDomain> domains = new ArrayList<>();
    private final List<MemoryHandle> handles = new ArrayList<>();
    private final List<String> transports = new ArrayList<>();
    private final AutoCloseable own;
    private final String allocatedBy;
    private byte[] packed;
    /** Context-unique id: names this map in the key entry of emulated atomics ({@link SoftAtomics}). */
    final long id;
    private boolean closed;

    MemoryMap(final Context context, final MemorySegment existing, final long length, final int flags) {
        this(context, existing, length, flags, 0);
    }

    /** {@code fixedAddress}: where a FIXED map goes (0: the context chooses). */
    MemoryMap(final Context context, final MemorySegment existing, final long length, final int flags,
              final long fixedAddress) {
        this.context = context;
        this.flags = flags;
        MemorySegment seg = existing;
        AutoCloseable own = null;
        String from = "caller";
        final int regFlags = (flags & SYMMETRIC_RKEY) != 0 ? MemoryDomain.REG_SYMMETRIC : 0;
        try {
            if ((flags & FIXED) != 0) {
                if ((flags & ALLOCATE) == 0) {
                    throw new WeftException(Status.INVALID_PARAM, "memMap: FIXED applies to allocation only (an "
                        + "existing segment already has its address)");
                }
                final FixedAllocation fa = FixedAllocation.allocate(context, fixedAddress, length);
                if (fa.transport() != null) {
                    add(fa.transport(), fa.handle());
                    seg = fa.handle().segment();
                    from = fa.transport().name();
                } else {
                    own = fa.mapping();
                    seg = fa.mapping().segment();
                    from = "process (fixed anonymous mapping)";
                }
            } else if ((flags & ALLOCATE) != 0) {
                if (length <= 0) {
                    throw new WeftException(Status.INVALID_PARAM, "memMap: length must be positive, got " + length);
                }
                // best allocator: a domain whose memory other processes can map, else plain off-heap memory
                Transport best = null;
                for (final Transport t : context.transports()) {
                    final MemoryDomainAttributes a = t.memoryDomain().attributes();
                    if (a.has(MemoryDomainAttributes.ALLOC | MemoryDomainAttributes.ALLOC_SHARED)
                        && a.maxAlloc() >= length) {
                        best = t;
                        break;
                    }
                }
                if (best != null) {
                    final MemoryHandle h = best.memoryDomain().allocate(length);
                    add(best, h);
                    seg = h.segment();
                    from = best.name();
                } else {
                    final Arena a = Arena.ofShared();
                    own = a;
                    seg = a.allocate(length, 4096);
                    from = "process";
                }
            } else if (seg == null) {
                throw new WeftException(Status.INVALID_PARAM, "memMap: no segment to register");
            } else if (!seg.isNative()) {
                throw new WeftException(Status.INVALID_PARAM, "memMap: only off-heap (native) segments can be mapped");
            }
            for (final Transport t : context.transports()) {
                final MemoryDomain md = t.memoryDomain();
                if (domains.contains(md) || !md.attributes().has(MemoryDomainAttributes.REG)) {
                    continue;
                }
                add(t, md.register(seg, regFlags));
            }
        } catch (final RuntimeException e) {
            releaseAll();
            closeQuietly(own, e);
            throw e;
        }
        this.segment = seg;
        this.own = own;
        this.allocatedBy = from;
        this.id = context.newMapId((flags & SYMMETRIC_RKEY) != 0, seg.address(), seg.byteSize());
        context.mapped(this);
    }

    private static void closeQuietly(final AutoCloseable c, final RuntimeException pending) {
        if (c != null) {
            try {
                c.close();
            } catch (final Exception x) {
                pending.addSuppressed(x);
            }
        }
    }

    private void add(final Transport t, final MemoryHandle h) {
        domains.add(t.memoryDomain());
        handles.add(h);
        transports.add(t.name());
    }

    /** The mapped memory (valid until {@link #close()}). */
    public MemorySegment segment() {
        checkOpen();
        return segment;
    }

    /** The memory, for a target-side emulated atomic that found this map live. */
    MemorySegment segmentUnchecked() {
        return segment;
    }

    /** Start address of the mapped memory (what peers use as the base of remote addresses). */
    public long address() {
        checkOpen();
        return segment.address();
    }

    /** Length in bytes. */
    public long length() {
        checkOpen();
        return segment.byteSize();
    }

    /** True until {@link #close()}. */
    public boolean isMapped() {
        return !closed;
    }

    /**
     * Who provided the memory: a transport's memory domain name (e.g. {@code "shm"}), {@code "process"}
     * (plain off-heap memory, or a fixed anonymous mapping), or {@code "caller"} (registered segment).
     */
    public String allocatedBy() {
        return allocatedBy;
    }

    /**
     * The memory domains whose keys of this map are symmetric (byte-equal across PEs that map alike):
     * those with {@link weft.uct.MemoryDomainAttributes#SYMMETRIC_RKEY}, when this map has
     * {@link #SYMMETRIC_RKEY}; empty otherwise.
     */
    public List<String> symmetricDomains() {
        checkOpen();
        final List<String> l = new ArrayList<>();
        if ((flags & SYMMETRIC_RKEY) != 0) {
            for (int i = 0; i < domains.size(); i++) {
                if (domains.get(i).attributes().has(MemoryDomainAttributes.SYMMETRIC_RKEY)) {
                    l.add(transports.get(i));
                }
            }
        }
        return l;
    }

    /** The flags given at creation. */
    public int flags() {
        return flags;
    }

    /** Names of the memory domains (transports) this memory is allocated by or registered with. */
    public List<String> memoryDomains() {
        checkOpen();
        return List.copyOf(transports);
    }

    /** The remote key: bytes a peer unpacks with {@link Endpoint#unpackRkey(byte[])}. */
    public byte[] packRkey() {
        checkOpen();
        if (packed == null) {
            final List<byte[]> keys = new ArrayList<>();
            final List<String> names = new ArrayList<>(transports);
            int size = 4 + 1 + 1 + 8 + 8 + 1;
            for (int i = 0; i < handles.size(); i++) {
                keys.add(domains.get(i).packRkey(handles.get(i)));
            }
            // last: the entry a peer uses when no lane has atomics on this memory (SoftAtomics)
            names.add(SoftAtomics.ENTRY);
            keys.add(weft.ucp.wire.AmoKeyEntry.pack(id < 0 ? Context.SOFT_AMO_SYMMETRIC_STAMP : context.softAmoNonce, id));
            for (int i = 0; i < keys.size(); i++) {
                size += 1 + names.get(i).length() + 2 + keys.get(i).length;
            }
            final ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(MAGIC).put((byte) VERSION).put((byte) flags).putLong(address()).putLong(length())
                .put((byte) keys.size());
            for (int i = 0; i < keys.size(); i++) {
                final byte[] name = names.get(i).getBytes(StandardCharsets.US_ASCII);
                b.put((byte) name.length).put(name).putShort((short) keys.get(i).length).put(keys.get(i));
            }
            packed = b.array();
        }
        return packed.clone();
    }

    /**
     * Unmaps: deregisters from every domain and frees allocated memory. Afterwards every method but
     * {@link #isMapped()}, {@link #flags()}, {@link #allocatedBy()} and close fails with CLOSED. Peers'
     * keys are revoked where the transport can revoke: tcp and self answer INVALID_RKEY (unless the same
     * memory is still registered by another live map: registrations are shared); cma reads by address
     * (a freed range gives an error, a reused one is the caller's race, as in UCX); shm peers keep their
     * mapping of the file (no crash, the memory is simply no longer the owner's).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        context.unmapped(this); // emulated atomics refuse it from now on
        releaseAll();
        if (own != null) {
            try {
                own.close();
            } catch (final Exception e) {
                throw new WeftException(Status.IO_ERROR, "memUnmap: " + e.getMessage(), e);
            }
        }
    }

    private void releaseAll() {
        for (int i = handles.size() - 1; i >= 0; i--) {
            domains.get(i).deregister(handles.get(i));
        }
        handles.clear();
        domains.clear();
    }

    private void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "memory map [" + allocatedBy + "] is unmapped: use after memUnmap");
        }
    }

    /** A parsed packed key: the region and each transport's key. */
    record Packed(int flags, long address, long length, List<String> transports, List<byte[]> keys) {
        static Packed parse(final byte[] bytes) {
            if (bytes == null || bytes.length < 23) {
                throw new WeftException(Status.INVALID_RKEY, "not a Weft remote key: "
                    + (bytes == null ? "null" : bytes.length + " bytes"));
            }
            final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            if (b.getInt() != MAGIC) {
                throw new WeftException(Status.INVALID_RKEY, "not a Weft remote key (bad magic)");
            }
            final int ver = b.get() & 0xff;
            if (ver != VERSION) {
                throw new WeftException(Status.INVALID_RKEY, "remote key version " + ver + " is not supported (reads "
                    + VERSION + ")");
            }
            try {
                final int flags = b.get() & 0xff;
                final long addr = b.getLong();
                final long len = b.getLong();
                final int n = b.get() & 0xff;
                final List<String> tl = new ArrayList<>();
                final List<byte[]> keys = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    final byte[] name = new byte[b.get() & 0xff];
                    b.get(name);
                    final byte[] k = new byte[b.getShort() & 0xffff];
                    b.get(k);
                    tl.add(new String(name, StandardCharsets.US_ASCII));
                    keys.add(k);
                }
                if (b.hasRemaining() || len < 0) {
                    throw new WeftException(Status.INVALID_RKEY, "remote key has trailing bytes or a bad length");
                }
                return new Packed(flags, addr, len, tl, keys);
            } catch (final java.nio.BufferUnderflowException e) {
                throw new WeftException(Status.INVALID_RKEY, "remote key is truncated (" + bytes.length + " bytes)");
            }
        }
    }
}
