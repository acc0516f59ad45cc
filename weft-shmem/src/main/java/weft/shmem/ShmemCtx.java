package weft.shmem;

/**
 * An OpenSHMEM communication context ({@code shmem_ctx_t}): the RMA, atomic, signal and ordering routines of
 * {@link Shmem} on a stream of operations of its own, so that {@link #quiet()} and {@link #fence()} here
 * order and complete only this context's operations. Each context has its own ucp worker (its own endpoints
 * and remote keys): threads that each use their own context never share a worker. Made by
 * {@link Shmem#ctxCreate(long)} (PE arguments are world PE numbers) or {@link Shmem#teamCreateCtx} (PE
 * arguments number the team's members); {@link #close()} is {@code shmem_ctx_destroy}.
 *
 * <pre>{@code
 * try (ShmemCtx ctx = shmem.ctxCreate(Shmem.CTX_PRIVATE)) {   // in the thread that uses it
 *     ctx.longPutNbi(dest, src, n, pe);
 *     ctx.quiet();
 * }
 * }</pre>
 */
public final class ShmemCtx extends ShmemAtomics implements AutoCloseable {
    private final UcpPeers peers;
    private final long options;
    private final ShmemTeam team;
    private boolean closed;

    ShmemCtx(final OneSided ops, final UcpPeers peers, final long options, final ShmemTeam team) {
        super(ops);
        this.peers = peers;
        this.options = options;
        this.team = team;
    }

    /** The options given at creation ({@link Shmem#CTX_SERIALIZED}, {@link Shmem#CTX_PRIVATE}, {@link Shmem#CTX_NOSTORE}). */
    public long options() {
        return options;
    }

    /** {@code shmem_ctx_get_team}: the team whose PE numbers this context uses ({@link Shmem#TEAM_WORLD} for ctxCreate). */
    public ShmemTeam getTeam() {
        return team;
    }

    /** Endpoints this context connected. */
    public int endpointCount() {
        return peers.endpointCount();
    }

    /** {@code shmem_ctx_destroy}: completes the context's operations and releases its worker. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            ops.quiet();
        } finally {
            peers.close();
        }
    }
}
