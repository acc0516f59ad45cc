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
    /** Map at the same virtual address in every process (not supported yet: fails with UNSUPPORTED). */
    public static final int FIXED = 1 << 1;
    /** Keys of identical registrations should be identical where the transport allows it. */
    public static final int SYMMETRIC_RKEY = 1 << 2;

    static final int MAGIC = 0x4b524657; // "WFRK" little endian
    static final int VERSION = 1;

    private final Context context;
    private final int flags;
    private final MemorySegment segment;
    private final List<MemoryDomain> domains = new ArrayList<>();
    private final List<MemoryHandle> handles = new ArrayList<>();
    private final List<String> transports = new ArrayList<>();
    private final Arena arena;
    private byte[] packed;
    private boolean closed;

    MemoryMap(final Context context, final MemorySegment existing, final long length, final int flags) {
        if ((flags & FIXED) != 0) {
            throw new WeftException(Status.UNSUPPORTED, "MemoryMap.FIXED is not supported on this platform yet");
        }
        this.context = context;
        this.flags = flags;
        MemorySegment seg = existing;
        Arena own = null;
        try {
            if ((flags & ALLOCATE) != 0) {
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
                } else {
                    own = Arena.ofShared();
                    seg = own.allocate(length, 4096);
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
                add(t, md.register(seg));
            }
        } catch (final RuntimeException e) {
            releaseAll();
            if (own != null) {
                own.close();
            }
            throw e;
        }
        this.segment = seg;
        this.arena = own;
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

    /** Start address of the mapped memory (what peers use as the base of remote addresses). */
    public long address() {
        return segment.address();
    }

    /** Length in bytes. */
    public long length() {
        return segment.byteSize();
    }

    /** The flags given at creation. */
    public int flags() {
        return flags;
    }

    /** Names of the memory domains (transports) this memory is registered with. */
    public List<String> memoryDomains() {
        return List.copyOf(transports);
    }

    /** The remote key: bytes a peer unpacks with {@link Endpoint#unpackRkey(byte[])}. */
    public byte[] packRkey() {
        checkOpen();
        if (packed == null) {
            final List<byte[]> keys = new ArrayList<>();
            int size = 4 + 1 + 1 + 8 + 8 + 1;
            for (int i = 0; i < handles.size(); i++) {
                final byte[] k = domains.get(i).packRkey(handles.get(i));
                keys.add(k);
                size += 1 + transports.get(i).length() + 2 + k.length;
            }
            final ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
            b.putInt(MAGIC).put((byte) VERSION).put((byte) flags).putLong(address()).putLong(length())
                .put((byte) keys.size());
            for (int i = 0; i < keys.size(); i++) {
                final byte[] name = transports.get(i).getBytes(StandardCharsets.US_ASCII);
                b.put((byte) name.length).put(name).putShort((short) keys.get(i).length).put(keys.get(i));
            }
            packed = b.array();
        }
        return packed.clone();
    }

    /** Unmaps: deregisters from every domain and frees allocated memory. Peers' keys become invalid. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        releaseAll();
        if (arena != null) {
            arena.close();
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
            throw new WeftException(Status.CLOSED, "memory map is unmapped");
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
