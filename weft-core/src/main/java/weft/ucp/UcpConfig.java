package weft.ucp;

import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;

/** The protocol layer's tunables (read once per context; printed by {@code weft info -c}). */
final class UcpConfig {
    static final ConfigVar<Long> RNDV_THRESH = ConfigRegistry.register("RNDV_THRESH", ConfigType.SIZE_OR_AUTO,
        "auto", "Message size from which tag and AM sends use rendezvous; auto = from the lanes' performance model.");
    static final ConfigVar<Long> MAX_SHORT = ConfigRegistry.register("MAX_SHORT", ConfigType.SIZE_OR_AUTO, "auto",
        "Largest payload sent inline (eager short); auto = the AM lane's limit.");
    static final ConfigVar<Long> ZCOPY_THRESH = ConfigRegistry.register("ZCOPY_THRESH", ConfigType.SIZE_OR_AUTO,
        "auto", "Message size from which eager tag sends go zero-copy (sent from the user's buffer, in fragments "
            + "of the lane's zero-copy limit) where the AM lane can; auto = where a copy would need more than "
            + "one fragment.");
    static final ConfigVar<Long> EAGER_GET_THRESH = ConfigRegistry.register("EAGER_GET_THRESH",
        ConfigType.SIZE_OR_AUTO, "auto", "Message size from which tag sends use the GET-based eager protocol (the "
            + "sender copies into a pool the receiver maps and sends only the header) where the AM lane's transport "
            + "allocates memory its peers map (shm); auto = one byte past a single eager copy fragment.");
    static final ConfigVar<Long> EAGER_GET_MAX = ConfigRegistry.register("EAGER_GET_MAX", ConfigType.SIZE, "64k",
        "Largest message sent GET-based eager (the pool's slot size); 0 turns the protocol off. With it on, an "
            + "automatic WEFT_RNDV_THRESH starts above it.");
    static final ConfigVar<Long> EAGER_GET_POOL = ConfigRegistry.register("EAGER_GET_POOL", ConfigType.SIZE, "4m",
        "Bytes of a worker's GET-based eager pool (allocated on first use; a send finding no free slot goes "
            + "in eager fragments instead).");
    static final ConfigVar<Integer> MAX_RNDV_RAILS = ConfigRegistry.register("MAX_RNDV_RAILS", ConfigType.INT, "2",
        "Most lanes a rendezvous transfer is striped over (gets, or streaming over AM on the lanes that send "
            + "zero-copy AM), one per device pair, bandwidth-weighted.");
    static final ConfigVar<Double> MULTI_LANE_MAX_RATIO = ConfigRegistry.register("MULTI_LANE_MAX_RATIO",
        ConfigType.DOUBLE, "4", "A lane slower than the fastest by more than this factor is not used for striping.");
    static final ConfigVar<Long> RNDV_CHUNK = ConfigRegistry.register("RNDV_CHUNK_SIZE", ConfigType.SIZE, "4m",
        "Largest piece one rendezvous get or put moves at once (per lane).");
    static final ConfigVar<String> RNDV_SCHEME = ConfigRegistry.register("RNDV_SCHEME",
        ConfigType.oneOf("auto", "get", "put", "am"), "auto",
        "Rendezvous data movement: get (receiver reads the sender's memory, striped over the rendezvous lanes), "
            + "put (sender writes into the receiver's registered buffer after its RTR, striped, then flushes), "
            + "am (sender streams on clear-to-send), auto (get where it brings another data path, else put where "
            + "every rendezvous lane can put zero-copy into registered memory, else am).");
    static final ConfigVar<Long> UNEXPECTED_BUDGET = ConfigRegistry.register("UNEXPECTED_BUDGET", ConfigType.SIZE,
        "64m", "Bytes a worker may hold for unexpected eager messages before it stops accepting more from the wire.");
    static final ConfigVar<Integer> MAX_RMA_RAILS = ConfigRegistry.register("MAX_RMA_RAILS", ConfigType.INT, "2",
        "Most lanes one remote key spreads put/get over: large operations are striped over them (bandwidth-"
            + "weighted), small ones go to one of them chosen by WEFT_LANE_POLICY. Only lanes within "
            + "WEFT_MULTI_LANE_MAX_RATIO of the best (bandwidth and latency) qualify; atomics always use one lane.");
    static final ConfigVar<Long> MIN_RMA_CHUNK = ConfigRegistry.register("MIN_RMA_CHUNK_SIZE", ConfigType.SIZE,
        "64k", "Smallest share of a put/get per lane when striping: an operation of s bytes is striped over "
            + "min(rails, s / this) lanes (below two, it goes to one lane). Also the smallest share of a "
            + "rendezvous streamed over several lanes.");
    static final ConfigVar<Long> SOFT_GET_THRESH = ConfigRegistry.register("SOFT_GET_THRESH", ConfigType.SIZE_OR_AUTO,
        "auto", "Size from which a get of memory that only a system-call lane reaches (a same-node peer's registered "
            + "memory: cma, one process_vm_readv per get) is emulated over the AM lane instead (shm: the target "
            + "copies the bytes out at its next progress, as UCX does for such memory) when that lane is faster; "
            + "auto = every size; inf = never (gets stay on cma, which needs no progress at the target).");
    static final ConfigVar<String> LANE_POLICY = ConfigRegistry.register("LANE_POLICY",
        ConfigType.oneOf("fixed", "rr", "lu"), "fixed",
        "Lane of a put/get too small to stripe, when several lanes qualify: fixed (always the best lane), rr "
            + "(round robin per peer, as TNI-RR of the Tofu-D port) or lu (the lane with the fewest outstanding "
            + "bytes, as TNI-LU). Atomics on one remote key always use one lane.");

    static final ConfigVar<Integer> WAIT_SPINS = ConfigRegistry.register("WAIT_SPINS", ConfigType.COUNT_OR_AUTO,
        "auto", "Idle polls of a blocking wait (Request.await) before it yields the CPU between polls; auto = "
            + WorkerSpin.SPINS + ", or " + WorkerSpin.CROWDED_SPINS + " when this node runs more of the job's "
            + "processes than it has CPUs (a waiting process then leaves its CPU to the peer it waits for).");
    static final ConfigVar<Long> IDLE_PROGRESS_INTERVAL = ConfigRegistry.register("IDLE_PROGRESS_INTERVAL",
        ConfigType.TIME, "100us", "How often a worker progresses an interface that carries none of its lanes and "
            + "has no connection or pending work of its own (where only a peer's first contact can arrive): "
            + "at most once in this time, and once in 32 progress calls when they are slower; 0 = every "
            + "32 calls; longer than a second (inf) counts as a second, so a first contact is always seen.");

    private UcpConfig() {
    }
}
