package weft.tools.perftest;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.memory.MemoryCopy;
import weft.uct.AtomicOp;
import weft.uct.Capability;
import weft.uct.Completion;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceAttributes;
import weft.uct.IoVector;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.Packer;
import weft.uct.RemoteKey;
import weft.uct.Unpacker;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * One side of a perftest run on an open interface: its receive region (which the peer writes,
 * reads and updates atomically through the remote key), its send buffer, the endpoint to the
 * peer, and the operations of the test issued with the chosen layout. The operation methods
 * allocate nothing: packers, the iov and the completion are preallocated and reused.
 */
final class PerfSide implements ControlChannel.SetupSide {
    /** AM id of the initiator's messages (handled by the responder). */
    static final int AM_DATA = 1;
    /** AM id of the responder's ping-pong replies. */
    static final int AM_REPLY = 2;
    /** AM id of the responder's flow-control credits in am_bw (header = messages received). */
    static final int AM_CREDIT = 3;
    /** Bytes of the AM header, included in the message size as ucx_perftest counts it. */
    static final int AM_HEADER = 8;

    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Acquire loads on the receive region, which the peer writes concurrently. */
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    final PerfParams params;
    final Interface iface;
    final InterfaceAttributes attrs;
    final long size;
    final boolean atomic32;
    /** The fetching atomic of the test (fixed per run: not re-derived per operation). */
    private final boolean cswap;
    private final AtomicOp fetchOp;
    private final MemoryDomain md;
    private final MemoryHandle recvHandle;
    private final MemoryHandle sendHandle;
    private final Arena arena = Arena.ofShared();
    /** Memory the peer accesses: put target, get source, atomic word at offset 0. */
    final MemorySegment recv;
    /** Local source of sends and puts, destination of gets. */
    final MemorySegment send;
    /** Result word of fetching atomics. */
    final MemorySegment result;
    private final MemorySegment amHeader;
    private final IoVector amIov;
    private final IoVector dataIov;
    /** Operations that returned IN_PROGRESS and have not completed yet (count) and their first error. */
    final Completion inflight = new Completion();
    private final HeaderPacker amPacker = new HeaderPacker();
    private final CopyPacker putPacker = new CopyPacker();
    private final CopyUnpacker getUnpacker = new CopyUnpacker();

    private Endpoint ep;
    private RemoteKey rkey;
    private long remoteAddress;

    PerfSide(final Interface iface, final PerfParams params) {
        this.params = params;
        this.iface = iface;
        this.attrs = iface.attributes();
        this.size = params.messageSize();
        this.atomic32 = params.test().isAtomic() && size == 4;
        this.cswap = params.test().command() == PerfTestKind.Command.CSWAP;
        this.fetchOp = params.test().command() == PerfTestKind.Command.SWAP ? AtomicOp.SWAP : AtomicOp.ADD;
        checkSupported();
        this.md = iface.transport().memoryDomain();
        final long regionSize = (Math.max(size, 8) + 63) & ~63L;
        recvHandle = allocate(regionSize);
        sendHandle = allocate(regionSize);
        recv = recvHandle.segment();
        send = sendHandle.segment();
        recv.fill((byte) 0);
        send.fill((byte) 0);
        result = arena.allocate(8, 8);
        amHeader = arena.allocate(AM_HEADER, 8);
        amIov = new IoVector(params.sizes().length);
        dataIov = new IoVector(params.sizes().length);
        fillIov(dataIov, 0);
        fillIov(amIov, AM_HEADER);
        inflight.reset(0);
    }

    private MemoryHandle allocate(final long length) {
        final MemoryDomainAttributes a = md.attributes();
        if (a.has(MemoryDomainAttributes.ALLOC)) {
            return md.allocate(length);
        }
        if (a.has(MemoryDomainAttributes.REG)) {
            return md.register(arena.allocate(length, 64));
        }
        throw new PerfException(md.name() + ": the memory domain can neither allocate nor register memory");
    }

    /** The -s entries laid out back to back in the send buffer, minus the first {@code skip} bytes. */
    private void fillIov(final IoVector iov, final long skip) {
        long pos = 0;
        for (final long len : params.sizes()) {
            final long start = Math.max(pos, skip);
            final long end = pos + len;
            if (end > start) {
                iov.add(send, start, end - start);
            }
            pos = end;
        }
    }

    private String tlName() {
        return iface.transport().name() + "/" + iface.device().name();
    }

    /** Fails with ucx_perftest's kind of message if the interface cannot run the test as asked. */
    private void checkSupported() {
        final PerfTestKind t = params.test();
        final PerfParams.Layout l = params.layout();
        if (l == PerfParams.Layout.CONTIG || l == PerfParams.Layout.IOV) {
            throw new PerfException("data layout '" + l.label() + "' is for protocol-layer tests; transport-layer "
                + "tests use short, bcopy or zcopy");
        }
        final String op = switch (t.command()) {
            case AM -> "am";
            case PUT -> "put";
            case GET -> "get";
            case ADD -> "atomic add";
            case FADD -> "atomic fetch-and-add";
            case SWAP -> "atomic swap";
            case CSWAP -> "atomic compare-and-swap";
            case TAG, TAG_SYNC, STREAM, UCP_AM -> throw new PerfException(t.testName() + " is a protocol-layer test: it runs on "
                + "a worker, not on one interface");
        };
        if (t.isAtomic()) {
            if (size != 4 && size != 8) {
                throw new PerfException("atomic tests need a message size of 4 or 8 bytes, not " + size);
            }
            final AtomicOp aop = switch (t.command()) {
                case SWAP -> AtomicOp.SWAP;
                case CSWAP -> AtomicOp.CSWAP;
                default -> AtomicOp.ADD;
            };
            final long cap = size == 4 ? Capability.ATOMIC32 : Capability.ATOMIC64;
            final int ops = size == 4 ? attrs.atomic32Ops() : attrs.atomic64Ops();
            if (!attrs.has(cap) || (ops & aop.bit()) == 0) {
                throw unsupported(op + " " + size * 8 + "-bit");
            }
            return;
        }
        final long cap = switch (t.command()) {
            case AM -> l == PerfParams.Layout.SHORT ? Capability.AM_SHORT
                : l == PerfParams.Layout.BCOPY ? Capability.AM_BCOPY : Capability.AM_ZCOPY;
            case PUT -> l == PerfParams.Layout.SHORT ? Capability.PUT_SHORT
                : l == PerfParams.Layout.BCOPY ? Capability.PUT_BCOPY : Capability.PUT_ZCOPY;
            default -> l == PerfParams.Layout.SHORT ? Capability.GET_SHORT
                : l == PerfParams.Layout.BCOPY ? Capability.GET_BCOPY : Capability.GET_ZCOPY;
        };
        if (t.command() == PerfTestKind.Command.GET && l == PerfParams.Layout.SHORT) {
            throw new PerfException(tlName() + " does not support operation get short (use -D bcopy or -D zcopy)");
        }
        if (!attrs.has(cap)) {
            throw unsupported(op + " " + l.label());
        }
        if (t.command() == PerfTestKind.Command.AM && size < AM_HEADER) {
            throw new PerfException("AM header size (" + AM_HEADER + ") is larger than message size (" + size + ")");
        }
        if (t == PerfTestKind.PUT_LAT && size < 1) {
            throw new PerfException("put_lat needs a message size of at least 1 byte");
        }
        final long max = switch (t.command()) {
            case AM -> switch (l) {
                case SHORT -> attrs.amMaxShort() + (long) AM_HEADER;
                case BCOPY -> attrs.amMaxBcopy();
                default -> attrs.amMaxZcopy() + AM_HEADER; // zcopy (contig and iov were refused above)
            };
            case PUT -> switch (l) {
                case SHORT -> attrs.putMaxShort();
                case BCOPY -> attrs.putMaxBcopy();
                default -> attrs.putMaxZcopy();
            };
            default -> l == PerfParams.Layout.BCOPY ? attrs.getMaxBcopy() : attrs.getMaxZcopy();
        };
        if (size > max) {
            throw new PerfException(tlName() + ": message size " + size + " is larger than the " + op + " "
                + l.label() + " limit (" + max + ")");
        }
        if (l == PerfParams.Layout.ZCOPY && t.command() == PerfTestKind.Command.AM
            && params.sizes().length > attrs.amMaxIov()) {
            throw new PerfException(tlName() + ": " + params.sizes().length + " iov entries exceed the limit of "
                + attrs.amMaxIov());
        }
    }

    private PerfException unsupported(final String what) {
        return new PerfException(tlName() + " does not support operation " + what);
    }

    // ---- setup: what the peer needs, and connecting to it ----

    /** Device address, interface address, packed rkey and address of the receive region. */
    @Override
    public byte[] setupMessage() {
        try {
            final ByteArrayOutputStream bos = new ByteArrayOutputStream();
            final DataOutputStream out = new DataOutputStream(bos);
            writeBytes(out, iface.deviceAddress());
            writeBytes(out, iface.interfaceAddress());
            writeBytes(out, md.packRkey(recvHandle));
            out.writeLong(recvHandle.address());
            out.writeLong(recv.byteSize());
            out.flush();
            return bos.toByteArray();
        } catch (final IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void writeBytes(final DataOutputStream out, final byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(final DataInputStream in) throws IOException {
        final int n = in.readInt();
        if (n < 0 || n > 65536) {
            throw new IOException("bad length " + n);
        }
        final byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    /**
     * Connects to the peer described by its {@link #setupMessage()}: checks reachability,
     * creates the endpoint and unpacks the remote key.
     *
     * @throws PerfException with a clear reason when the peer cannot be reached
     */
    void connect(final byte[] peerSetup) {
        final byte[] dev;
        final byte[] ifa;
        final byte[] packedRkey;
        final long addr;
        final long len;
        try {
            final DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(peerSetup));
            dev = readBytes(in);
            ifa = readBytes(in);
            packedRkey = readBytes(in);
            addr = in.readLong();
            len = in.readLong();
        } catch (final IOException e) {
            throw new PerfException("malformed setup message from the peer: " + e.getMessage(), e);
        }
        if (!iface.isReachable(dev, ifa)) {
            throw new PerfException(tlName() + " cannot reach the peer's interface (device address " + dev.length
                + " bytes, interface address " + ifa.length + " bytes): choose a transport that connects the two "
                + "processes with -x");
        }
        if (len < Math.max(size, 8)) {
            throw new PerfException("the peer's region has " + len + " bytes, the test needs " + Math.max(size, 8));
        }
        try {
            ep = iface.connect(dev, ifa);
            rkey = md.unpackRkey(packedRkey);
        } catch (final WeftException e) {
            throw new PerfException(tlName() + ": cannot connect to the peer: " + e.getMessage(), e);
        }
        remoteAddress = addr;
    }

    Endpoint endpoint() {
        return ep;
    }

    // ---- operations (data path: no allocation) ----

    /** Sends an AM whose 8-byte header is {@code header}, with the test's size and layout. */
    Status sendAm(final int id, final long header) {
        switch (params.layout()) {
            case SHORT:
                return ep.amShort(id, header, send, AM_HEADER, (int) (size - AM_HEADER));
            case BCOPY: {
                amPacker.header = header;
                final long r = ep.amBcopy(id, amPacker);
                return r >= 0 ? Status.OK : Status.of((int) r);
            }
            default: {
                amHeader.set(LONG_LE, 0, header);
                inflight.expect(1);
                final Status st = ep.amZcopy(id, amHeader, 0, AM_HEADER, amIov, inflight);
                if (st != Status.IN_PROGRESS) {
                    inflight.expect(-1);
                }
                return st;
            }
        }
    }

    /** Sends a flow-control credit (always a short or bcopy AM with just the header). */
    Status sendCredit(final long received) {
        if (attrs.has(Capability.AM_SHORT)) {
            return ep.amShort(AM_CREDIT, received, send, 0, 0);
        }
        amPacker.header = received;
        amPacker.headerOnly = true;
        final long r = ep.amBcopy(AM_CREDIT, amPacker);
        amPacker.headerOnly = false;
        return r >= 0 ? Status.OK : Status.of((int) r);
    }

    /** Puts the send buffer's message into the peer's receive region. */
    Status put() {
        switch (params.layout()) {
            case SHORT:
                return ep.putShort(send, 0, (int) size, remoteAddress, rkey);
            case BCOPY: {
                final long r = ep.putBcopy(putPacker, remoteAddress, rkey);
                return r >= 0 ? Status.OK : Status.of((int) r);
            }
            default: {
                inflight.expect(1);
                final Status st = ep.putZcopy(dataIov, remoteAddress, rkey, inflight);
                if (st != Status.IN_PROGRESS) {
                    inflight.expect(-1);
                }
                return st;
            }
        }
    }

    /** Gets the peer's region into the send buffer. */
    Status get() {
        inflight.expect(1);
        final Status st = params.layout() == PerfParams.Layout.BCOPY
            ? ep.getBcopy(getUnpacker, size, remoteAddress, rkey, inflight)
            : ep.getZcopy(dataIov, remoteAddress, rkey, inflight);
        if (st != Status.IN_PROGRESS) {
            inflight.expect(-1);
        }
        return st;
    }

    /** Posts an atomic add of 1 to the peer's word. */
    Status atomicAdd() {
        return atomic32
            ? ep.atomic32Post(AtomicOp.ADD, 1, remoteAddress, rkey)
            : ep.atomic64Post(AtomicOp.ADD, 1L, remoteAddress, rkey);
    }

    /** The test's fetching atomic on the peer's word; the old value lands in {@link #result}. */
    Status atomicFetch(final long value) {
        inflight.expect(1);
        final Status st;
        if (cswap) {
            // compare with the value last seen, so the swap normally succeeds
            st = atomic32
                ? ep.atomic32Cswap((int) value - 1, (int) value, result, 0, remoteAddress, rkey, inflight)
                : ep.atomic64Cswap(value - 1, value, result, 0, remoteAddress, rkey, inflight);
        } else {
            final long v = fetchOp == AtomicOp.ADD ? 1 : value;
            st = atomic32
                ? ep.atomic32Fetch(fetchOp, (int) v, result, 0, remoteAddress, rkey, inflight)
                : ep.atomic64Fetch(fetchOp, v, result, 0, remoteAddress, rkey, inflight);
        }
        if (st != Status.IN_PROGRESS) {
            inflight.expect(-1);
        }
        return st;
    }

    /** Flushes the endpoint, counting an IN_PROGRESS flush in {@link #inflight}. */
    Status flush() {
        inflight.expect(1);
        final Status st = ep.flush(Interface.FLUSH_REMOTE, inflight);
        if (st != Status.IN_PROGRESS) {
            inflight.expect(-1);
        }
        return st;
    }

    // ---- the receive region, written by the peer ----

    /** The last byte of the message in the receive region (acquire: the bytes before it landed). */
    byte lastRecvByte() {
        return (byte) BYTE.getAcquire(recv, size - 1);
    }

    void setLastSendByte(final byte b) {
        send.set(ValueLayout.JAVA_BYTE, size - 1, b);
    }

    /** The atomic counter word at the start of the receive region (acquire). */
    long recvWord() {
        return atomic32 ? (int) INT.getAcquire(recv, 0L) : (long) LONG.getAcquire(recv, 0L);
    }

    /** Reads the 8-byte AM header at {@code offset} of received data. */
    static long header(final MemorySegment data, final long offset) {
        return data.get(LONG_LE, offset);
    }

    @Override
    public void close() {
        if (rkey != null) {
            rkey.close();
        }
        if (ep != null) {
            ep.close();
        }
        md.deregister(recvHandle);
        md.deregister(sendHandle);
        arena.close();
    }

    /** bcopy AM: the 8-byte header then the rest of the message from the send buffer. */
    private final class HeaderPacker implements Packer {
        long header;
        boolean headerOnly;

        @Override
        public long pack(final MemorySegment dest, final long offset, final long capacity) {
            final long len = headerOnly ? AM_HEADER : size;
            if (len > capacity) {
                return 0;
            }
            dest.set(LONG_LE, offset, header);
            if (len > AM_HEADER) {
                MemoryCopy.copy(send, AM_HEADER, dest, offset + AM_HEADER, len - AM_HEADER);
            }
            return len;
        }
    }

    /** bcopy put: the send buffer's message. */
    private final class CopyPacker implements Packer {
        @Override
        public long pack(final MemorySegment dest, final long offset, final long capacity) {
            final long len = Math.min(size, capacity);
            MemoryCopy.copy(send, 0, dest, offset, len);
            return len;
        }
    }

    /** bcopy get: into the send buffer. */
    private final class CopyUnpacker implements Unpacker {
        @Override
        public void unpack(final MemorySegment src, final long offset, final long length) {
            MemoryCopy.copy(src, offset, send, 0, Math.min(length, size));
        }
    }
}
