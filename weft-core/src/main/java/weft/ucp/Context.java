package weft.ucp;

import weft.ucs.SplitMix;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.config.Config;
import weft.uct.Device;
import weft.uct.Transport;
import weft.uct.Transports;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static weft.ucs.SplitMix.mix;

/**
 * The application's handle on Weft: which features it needs and which transports it may use. Create
 * one per process, then one {@link Worker} per thread.
 *
 * <pre>{@code
 * try (Context ctx = Context.builder().features(Feature.TAG).build();
 *      Worker w = ctx.newWorker()) {
 *     byte[] myAddress = w.address();          // give it to the peer out of band
 *     Endpoint ep = w.connect(peerAddress);
 *     ep.sendTag(7, buffer).await();
 * }
 * }</pre>
 *
 * <p>Transports come from {@code WEFT_TLS} (or {@link Builder#transports}); devices can be filtered per
 * transport with the transports' own variables (e.g. {@code WEFT_TCP_DEVICES}).
 */
public final class Context implements AutoCloseable {
    private final Set<Feature> features;
    private final Config config;
    private final List<Transport> transports;
    private final List<Worker> workers = new ArrayList<>();
    private final int estimatedEndpoints;
    private final String name;
    final long rndvThresh;
    final long maxShort;
    final long zcopyThresh;
    final long eagerGetThresh;
    final long eagerGetMax;
    final long eagerGetPool;
    final int maxRndvRails;
    final double multiLaneMaxRatio;
    final long rndvChunk;
    final String rndvScheme;
    final long unexpectedBudget;
    /** WEFT_WAIT_SPINS: idle polls of a blocking wait before it yields (-1: auto, see {@link WorkerSpin}). */
    final int waitSpins;
    private final long fixedBase;
    private long fixedNext;
    final int maxRmaRails;
    final long minRmaChunk;
    /** See {@code WEFT_SOFT_GET_THRESH}: gets from this size are emulated where {@link Rkey} allows it. */
    final long softGetThresh;
    final int lanePolicy;
    private boolean closed;
    /**
     * Names this context in the {@code ucp-amo} entry of its private keys ({@link SoftAtomics}): random,
     * odd. Symmetric maps use {@link #SOFT_AMO_SYMMETRIC_STAMP} instead, so that their keys stay
     * byte-equal across the PEs of a job.
     */
    final long softAmoNonce = weft.ucs.sys.KernelRandom.nextLong() | 1L;
    /** Even, the same in every process of a job (from {@code WEFT_JOB_ID}). */
    static final long SOFT_AMO_SYMMETRIC_STAMP = symmetricStamp(System.getenv("WEFT_JOB_ID"));
    private long nextMapId;
    private long nextSymmetricMapId;
    /** Live maps sorted by id (copy on write: maps come and go rarely, lookups happen per emulated atomic). */
    private volatile MemoryMap[] liveMaps = new MemoryMap[0];

    private Context(final Builder b) {
        this.features = Collections.unmodifiableSet(EnumSet.copyOf(b.features));
        this.config = b.config;
        this.estimatedEndpoints = b.estimatedEndpoints;
        this.name = b.name;
        final List<Transport> sel = new ArrayList<>();
        for (final Transport t : b.transportNames == null ? selectedByConfig(config)
            : b.transportNames.stream().map(Transports::byName).toList()) {
            if (t.unavailableReason() == null && !t.devices().isEmpty()) {
                sel.add(t);
            }
        }
        if (sel.isEmpty()) {
            throw new WeftException(Status.UNSUPPORTED, "no usable transport (selected by WEFT_TLS="
                + config.text(Transports.TLS) + "; available: " + Transports.all().stream()
                .map(t -> t.name() + (t.unavailableReason() == null ? "" : " (" + t.unavailableReason() + ")"))
                .toList() + ")");
        }
        this.transports = List.copyOf(sel);
        // every layer has registered its variables now (transports above, these, the runtime's): report
        // WEFT_* names that match none, once per process
        configVars();
        weft.runtime.RuntimeConfig.all();
        weft.ucs.config.UnknownVariables.warnOnce();
        this.rndvThresh = config.get(UcpConfig.RNDV_THRESH);
        this.maxShort = config.get(UcpConfig.MAX_SHORT);
        this.zcopyThresh = config.get(UcpConfig.ZCOPY_THRESH);
        this.eagerGetThresh = config.get(UcpConfig.EAGER_GET_THRESH);
        this.eagerGetMax = Math.max(0, config.get(UcpConfig.EAGER_GET_MAX));
        this.eagerGetPool = Math.max(0, config.get(UcpConfig.EAGER_GET_POOL));
        this.maxRndvRails = Math.max(1, config.get(UcpConfig.MAX_RNDV_RAILS));
        this.multiLaneMaxRatio = config.get(UcpConfig.MULTI_LANE_MAX_RATIO);
        this.rndvChunk = Math.max(4096, config.get(UcpConfig.RNDV_CHUNK));
        this.rndvScheme = config.get(UcpConfig.RNDV_SCHEME);
        this.unexpectedBudget = config.get(UcpConfig.UNEXPECTED_BUDGET);
        this.waitSpins = config.get(UcpConfig.WAIT_SPINS);
        this.fixedBase = config.get(FixedAllocation.FIXED_BASE);
        this.maxRmaRails = Math.max(1, config.get(UcpConfig.MAX_RMA_RAILS));
        this.minRmaChunk = Math.max(1, config.get(UcpConfig.MIN_RMA_CHUNK));
        this.softGetThresh = Math.max(0, config.get(UcpConfig.SOFT_GET_THRESH)); // auto (-1): every size
        this.lanePolicy = Rails.policy(config.get(UcpConfig.LANE_POLICY));
    }

    /**
     * The transports {@code WEFT_TLS} selects. At this layer {@code shm} (or {@code sm}) means every
     * same-node transport: shm, cma and self ({@code ^cma} still removes one).
     */
    static List<Transport> selectedByConfig(final Config config) {
        final List<String> sel = config.get(Transports.TLS);
        if (!sel.contains("shm") && !sel.contains("sm")) {
            return Transports.selected(config);
        }
        final List<String> expanded = new ArrayList<>(sel);
        expanded.remove("sm");
        for (final String n : List.of("shm", "cma", "self")) {
            if (!expanded.contains(n)) {
                expanded.add(n);
            }
        }
        return Transports.selected(config.with(Transports.TLS.name(), String.join(",", expanded)));
    }

    /**
     * Every configuration variable of the protocol layer (loading the classes that declare them), for
     * tools such as {@code weft info -c}.
     */
    public static List<weft.ucs.config.ConfigVar<?>> configVars() {
        return List.of(UcpConfig.RNDV_THRESH, UcpConfig.MAX_SHORT, UcpConfig.MAX_RNDV_RAILS,
            UcpConfig.MULTI_LANE_MAX_RATIO, UcpConfig.RNDV_CHUNK, UcpConfig.ZCOPY_THRESH, UcpConfig.RNDV_SCHEME,
            UcpConfig.EAGER_GET_THRESH, UcpConfig.EAGER_GET_MAX, UcpConfig.EAGER_GET_POOL, UcpConfig.UNEXPECTED_BUDGET,
            UcpConfig.MAX_RMA_RAILS, UcpConfig.MIN_RMA_CHUNK, UcpConfig.SOFT_GET_THRESH, UcpConfig.LANE_POLICY,
            UcpConfig.IDLE_PROGRESS_INTERVAL, UcpConfig.WAIT_SPINS,
            Lifecycle.KEEPALIVE_INTERVAL, Lifecycle.KEEPALIVE_TIMEOUT, Lifecycle.EP_CLOSE_TIMEOUT,
            SockaddrHandshake.CONNECT_TIMEOUT, Streams.WINDOW, FixedAllocation.FIXED_BASE);
    }

    /** A context with the given features and the configuration from the environment. */
    public static Context create(final Feature... features) {
        return builder().features(features).build();
    }

    /** Starts building a context. */
    public static Builder builder() {
        return new Builder();
    }

    /** The features asked for. */
    public Set<Feature> features() {
        return features;
    }

    /** The configuration this context read. */
    public Config config() {
        return config;
    }

    /** The transports this context uses, best first. */
    public List<Transport> transports() {
        return transports;
    }

    /** Every device of every transport in use. */
    public List<Device> devices() {
        final List<Device> l = new ArrayList<>();
        for (final Transport t : transports) {
            l.addAll(t.devices());
        }
        return l;
    }

    /** The hint given at creation (0 when none). */
    public int estimatedEndpoints() {
        return estimatedEndpoints;
    }

    /** The name given at creation. */
    public String name() {
        return name;
    }

    /**
     * Allocates {@code length} bytes that peers can access: from the best memory domain (shared memory
     * for same-node peers) and registered with every other domain that can register.
     *
     * @param flags {@link MemoryMap#ALLOCATE} (implied), {@link MemoryMap#FIXED} (at this context's next
     *              fixed address) and {@link MemoryMap#SYMMETRIC_RKEY}
     */
    public MemoryMap memMap(final long length, final int flags) {
        checkOpen();
        return new MemoryMap(this, null, length, flags | MemoryMap.ALLOCATE);
    }

    /**
     * Allocates {@code length} bytes at exactly {@code address} (page aligned): {@link MemoryMap#FIXED} is
     * implied. Fails with INVALID_ADDRESS if any of the range is mapped already (nothing is replaced).
     */
    public MemoryMap memMap(final long address, final long length, final int flags) {
        checkOpen();
        if (address == 0) {
            throw new WeftException(Status.INVALID_PARAM, "memMap: a fixed address must not be 0");
        }
        return new MemoryMap(this, null, length, flags | MemoryMap.ALLOCATE | MemoryMap.FIXED, address);
    }

    /** The next address of the reserved fixed range (advanced even if the map then fails: PEs stay in step). */
    synchronized long nextFixedAddress(final long length) {
        final long at = fixedBase + fixedNext;
        fixedNext += FixedAllocation.slot(length);
        return at;
    }

    /** Registers existing off-heap memory with every memory domain that can register it. */
    public MemoryMap memMap(final java.lang.foreign.MemorySegment segment, final int flags) {
        checkOpen();
        return new MemoryMap(this, segment, segment.byteSize(), flags & ~MemoryMap.ALLOCATE);
    }

    private synchronized void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "context is closed");
        }
    }

    /** A worker for the calling thread ({@link ThreadMode#SINGLE}). */
    public Worker newWorker() {
        return newWorker(ThreadMode.SINGLE);
    }

    /** A worker with the given thread mode. */
    public synchronized Worker newWorker(final ThreadMode mode) {
        if (closed) {
            throw new WeftException(Status.CLOSED, "context is closed");
        }
        final Worker w = new Worker(this, mode);
        workers.add(w);
        return w;
    }

    synchronized void removeWorker(final Worker w) {
        workers.remove(w);
    }

    private static long symmetricStamp(final String jobId) {
        return SplitMix.evenJobStamp(0x5546_4D41_4F4D_5953L, jobId);
    }

    /**
     * A new map id, never reused in this context: private maps count up from 1; symmetric maps take
     * {@code 1 << 63 | seq << 32 | hash32(stamp, address, length)}, nothing random, so that PEs that map
     * the same symmetric memory in the same order pack equal keys.
     */
    synchronized long newMapId(final boolean symmetric, final long address, final long length) {
        if (!symmetric) {
            return ++nextMapId;
        }
        if (nextSymmetricMapId == 0x7FFF_FFFFL) {
            throw new WeftException(Status.NO_MEMORY, "memMap: symmetric map sequence exhausted");
        }
        final long hash = mix(SOFT_AMO_SYMMETRIC_STAMP ^ mix(address ^ mix(length))) & 0xFFFF_FFFFL;
        return 1L << 63 | ++nextSymmetricMapId << 32 | hash;
    }

    synchronized void mapped(final MemoryMap m) {
        final MemoryMap[] cur = liveMaps;
        final MemoryMap[] next = new MemoryMap[cur.length + 1];
        int i = 0;
        while (i < cur.length && cur[i].id < m.id) {
            next[i] = cur[i];
            i++;
        }
        next[i] = m;
        System.arraycopy(cur, i, next, i + 1, cur.length - i);
        liveMaps = next;
    }

    synchronized void unmapped(final MemoryMap m) {
        liveMaps = weft.ucs.CopyOnWriteArrays.without(liveMaps, m);
    }

    /** The live map a key's (nonce, id) names, or null (unmapped, or never of this context). No allocation. */
    MemoryMap softAmoTarget(final long nonce, final long id) {
        if (nonce != (id < 0 ? SOFT_AMO_SYMMETRIC_STAMP : softAmoNonce)) {
            return null;
        }
        final MemoryMap[] maps = liveMaps;
        int lo = 0;
        int hi = maps.length - 1;
        while (lo <= hi) {
            final int mid = (lo + hi) >>> 1;
            final long v = maps[mid].id;
            if (v < id) {
                lo = mid + 1;
            } else if (v > id) {
                hi = mid - 1;
            } else {
                return maps[mid];
            }
        }
        return null;
    }

    /**
     * Closes every worker still open, then the context; new workers and maps are refused from the first
     * call on. Any thread may call it once the workers' threads are done with them (see
     * {@link Worker#close()}), as UCX allows {@code ucp_cleanup} from any thread.
     *
     * <p>A worker that refuses to close (a SERIALIZED worker another thread is inside: BUSY) is left as it
     * was and stays open; the others are closed all the same, the first refusal is thrown (later ones
     * suppressed in it), and calling {@code close()} again closes what is left. Once every worker is
     * closed, further calls do nothing.
     */
    @Override
    public void close() {
        final List<Worker> ws;
        synchronized (this) {
            closed = true;
            if (workers.isEmpty()) {
                return;
            }
            ws = new ArrayList<>(workers);
        }
        RuntimeException failure = null;
        for (final Worker w : ws) {
            try {
                w.closeFromContext();
            } catch (final RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Builder for {@link Context}. */
    public static final class Builder {
        private EnumSet<Feature> features = EnumSet.of(Feature.TAG);
        private Config config = Config.global();
        private List<String> transportNames;
        private int estimatedEndpoints;
        private String name = "weft";

        private Builder() {
        }

        /** The features needed (default TAG). */
        public Builder features(final Feature... f) {
            features = f.length == 0 ? EnumSet.noneOf(Feature.class) : EnumSet.of(f[0], f);
            return this;
        }

        /** The configuration to read (default: environment and system properties). */
        public Builder config(final Config c) {
            config = c;
            return this;
        }

        /** Use exactly these transports (overrides {@code WEFT_TLS}). */
        public Builder transports(final String... names) {
            transportNames = List.of(names);
            return this;
        }

        /** Expected number of endpoints per worker (sizing hint). */
        public Builder estimatedEndpoints(final int n) {
            estimatedEndpoints = n;
            return this;
        }

        /** A name shown in errors and tools. */
        public Builder name(final String n) {
            name = n;
            return this;
        }

        /** Creates the context. */
        public Context build() {
            return new Context(this);
        }
    }
}
