package weft.shmem;

import weft.job.JobWorker;
import weft.runtime.Runtime;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucp.ThreadMode;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The ucp resources a PGAS or message-passing layer stands on: one {@link Context}, one {@link Worker},
 * the endpoint table of the job's PEs and the remote keys of symmetric segments. Worker addresses are
 * exchanged once ({@link Runtime#allgather}); an endpoint is connected the first time its PE is addressed,
 * so a PE that talks to a few neighbours holds a few endpoints. Remote keys are unpacked once per (segment,
 * PE), on first use; keys of transports with symmetric keys are shared by the worker
 * ({@link Worker#sharedRemoteKeyCount()}). Same-node peers' segments are mapped (where a lane can) so that
 * loads and stores reach them directly.
 *
 * <p>The context, the main worker and its endpoints are the process's {@link JobWorker}, shared with MPI
 * when the program uses both: either may be initialized first, and closing this releases the job worker
 * (the last user closes it). Thread rules are the worker's ({@link ThreadMode}); the tables are filled
 * under this object's lock.
 */
public final class UcpPeers implements AutoCloseable {
    private static final MemorySegment UNMAPPED = MemorySegment.NULL;
    // tables are read without the lock on every operation (acquire) and filled under it (release)
    private static final VarHandle EPS = MethodHandles.arrayElementVarHandle(Endpoint[].class);
    private static final VarHandle KEYS = MethodHandles.arrayElementVarHandle(Rkey[].class);
    private static final VarHandle MAPS = MethodHandles.arrayElementVarHandle(MemorySegment[].class);

    private final Runtime runtime;
    private final Context context;
    private final Worker worker;
    /** The job worker this stands on; its endpoints are this one's for the main worker (null for a copy). */
    private final JobWorker job;
    private final byte[][] addresses;
    private final Endpoint[] endpoints;
    private volatile Segment[] segments = new Segment[0];
    private volatile int endpointCount;
    private boolean closed;

    /** One symmetric segment: its packed keys by PE, and what was unpacked or mapped of them. */
    private static final class Segment {
        final byte[][] packed;
        final long base;
        final long length;
        final Rkey[] keys;
        final MemorySegment[] mappings;

        Segment(final byte[][] packed, final long base, final long length, final int n) {
            this.packed = packed;
            this.base = base;
            this.length = length;
            this.keys = new Rkey[n];
            this.mappings = new MemorySegment[n];
        }
    }

    private UcpPeers(final Runtime runtime, final JobWorker job, final Context context, final Worker worker,
                     final byte[][] addresses) {
        this.runtime = runtime;
        this.job = job;
        this.context = context;
        this.worker = worker;
        this.addresses = addresses;
        this.endpoints = new Endpoint[addresses.length];
    }

    /**
     * The same peers and segments over a new worker of the same context (an OpenSHMEM context of its own):
     * its endpoints go to the peers' workers, connected and keyed on first use like this one's. Not collective.
     * {@link #close()} of the copy closes its worker only.
     */
    public synchronized UcpPeers withWorker(final ThreadMode mode) {
        checkOpen();
        final UcpPeers p = new UcpPeers(runtime, null, context, context.newWorker(mode), addresses);
        final Segment[] copy = new Segment[segments.length];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = new Segment(segments[i].packed, segments[i].base, segments[i].length, addresses.length);
        }
        p.segments = copy;
        return p;
    }

    /**
     * Acquires the process's {@link JobWorker} (collective the first time in the process: it exchanges worker
     * addresses with every PE; MPI may have done so already) and stands on it. A worker made earlier by MPI
     * keeps its thread mode; asking for MULTI from one made otherwise is an error.
     */
    public static UcpPeers open(final Runtime runtime, final ThreadMode mode) {
        final JobWorker job = JobWorker.acquire(mode);
        final byte[][] addresses = new byte[job.size()][];
        for (int r = 0; r < addresses.length; r++) {
            addresses[r] = job.address(r);
        }
        return new UcpPeers(runtime, job, job.context(), job.worker(), addresses);
    }

    /** The job's runtime (rank, size, key-value exchange). */
    public Runtime runtime() {
        return runtime;
    }

    /** The ucp context. */
    public Context context() {
        return context;
    }

    /** The worker every operation goes through. */
    public Worker worker() {
        return worker;
    }

    /** This PE's rank. */
    public int rank() {
        return runtime.rank();
    }

    /** The number of PEs. */
    public int size() {
        return addresses.length;
    }

    /**
     * Publishes a symmetric segment: every PE calls this with its own packed key of the same segment, in
     * the same order. Collective.
     *
     * @return the segment's index for {@link #rkey} and {@link #mapping}
     * @throws IllegalStateException when the PEs' segments do not have the same base and length (a
     *     symmetric segment must be mapped at the same address everywhere)
     */
    public synchronized int addSegment(final long base, final long length, final byte[] packedKey) {
        checkOpen();
        final byte[] mine = new byte[16 + packedKey.length];
        final MemorySegment m = MemorySegment.ofArray(mine);
        m.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, base);
        m.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 8, length);
        MemorySegment.copy(MemorySegment.ofArray(packedKey), 0, m, 16, packedKey.length);
        final byte[][] all = runtime.allgather(mine);
        final byte[][] keys = new byte[all.length][];
        for (int pe = 0; pe < all.length; pe++) {
            final MemorySegment s = MemorySegment.ofArray(all[pe]);
            final long b = s.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0);
            final long l = s.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 8);
            if (b != base || l != length) {
                throw new IllegalStateException("symmetric segment " + segments.length + " is not symmetric: PE "
                    + rank() + " mapped 0x" + Long.toHexString(base) + " +" + length + ", PE " + pe + " 0x"
                    + Long.toHexString(b) + " +" + l + " (is WEFT_MEM_FIXED_BASE the same on every PE, and the range "
                    + "free in every process?)");
            }
            keys[pe] = Arrays.copyOfRange(all[pe], 16, all[pe].length);
        }
        final Segment[] grown = Arrays.copyOf(segments, segments.length + 1);
        grown[grown.length - 1] = new Segment(keys, base, length, all.length);
        segments = grown;
        return grown.length - 1;
    }

    /** The endpoint to {@code pe}, connected on first use. */
    public Endpoint endpoint(final int pe) {
        final Endpoint ep = (Endpoint) EPS.getAcquire(endpoints, pe);
        return ep != null ? ep : connect(pe);
    }

    private synchronized Endpoint connect(final int pe) {
        Endpoint ep = endpoints[pe];
        if (ep == null) {
            checkOpen();
            ep = job != null ? job.endpoint(pe) : worker.connect(addresses[pe]); // the main worker's are shared
            EPS.setRelease(endpoints, pe, ep);
            endpointCount++;
        }
        return ep;
    }

    /** The key of segment {@code seg} of {@code pe}, unpacked on first use. */
    public Rkey rkey(final int seg, final int pe) {
        final Rkey k = (Rkey) KEYS.getAcquire(segments[seg].keys, pe);
        return k != null ? k : unpack(seg, pe);
    }

    private synchronized Rkey unpack(final int seg, final int pe) {
        final Segment s = segments[seg];
        Rkey k = s.keys[pe];
        if (k == null) {
            k = endpoint(pe).unpackRkey(s.packed[pe]);
            KEYS.setRelease(s.keys, pe, k);
        }
        return k;
    }

    /**
     * Segment {@code seg} of {@code pe} mapped into this process (loads and stores reach that PE's memory),
     * or null when no lane maps it (another node, or a transport without mappings). Decided on first use.
     */
    public MemorySegment mapping(final int seg, final int pe) {
        MemorySegment m = (MemorySegment) MAPS.getAcquire(segments[seg].mappings, pe);
        if (m == null) {
            m = map(seg, pe);
        }
        return m == UNMAPPED ? null : m;
    }

    private synchronized MemorySegment map(final int seg, final int pe) {
        final Segment s = segments[seg];
        MemorySegment m = s.mappings[pe];
        if (m == null) {
            try {
                m = rkey(seg, pe).ptr(s.base, s.length);
            } catch (final WeftException e) {
                if (e.status() != Status.UNSUPPORTED) {
                    throw e;
                }
                m = UNMAPPED;
            }
            MAPS.setRelease(s.mappings, pe, m);
        }
        return m;
    }

    /** Endpoints connected so far (dynamic connections: only to PEs addressed). */
    public synchronized int endpointCount() {
        return endpointCount;
    }

    /** Remote keys unpacked so far, over all segments and PEs. */
    public synchronized int unpackedKeyCount() {
        int n = 0;
        for (final Segment s : segments) {
            for (final Rkey k : s.keys) {
                n += k != null ? 1 : 0;
            }
        }
        return n;
    }

    /** Completes every operation started on the worker (remote completion). */
    public void flush() {
        if (endpointCount != 0) {
            awaitAndRelease(worker.flush());
        }
    }

    /** Waits until every operation started on the worker has left this process (local completion). */
    public void flushSent() {
        if (endpointCount != 0) {
            awaitAndRelease(worker.flushSent());
        }
    }

    private static void awaitAndRelease(final Request r) {
        try {
            r.await();
        } finally {
            r.release();
        }
    }

    /** Orders operations per endpoint: later ones are seen after earlier ones. */
    public void fence() {
        if (endpointCount != 0) {
            worker.fence();
        }
    }

    /** One round of progress. */
    public int progress() {
        return worker.progress();
    }

    private void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "the PE's communication resources are closed");
        }
    }

    /**
     * Destroys the keys, then closes a copy's own worker, or releases the job worker (which the last of its
     * users, MPI or this, closes); operations must be complete.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            for (final Segment s : segments) {
                for (final Rkey k : s.keys) {
                    if (k != null) {
                        k.close();
                    }
                }
            }
        } finally {
            if (job != null) {
                job.release();
            } else {
                worker.close();
            }
        }
    }
}
