package mpi;

import java.nio.Buffer;

/**
 * A persistent request (MPI_Prequest): a send or receive set up once ({@code Comm.sendInit},
 * {@code recvInit} ...) and started many times with {@link #start}. Between a completion and the next start it
 * is inactive (the wait and test calls return at once); {@link #free} ends it.
 *
 * <pre>{@code
 * Prequest r = comm.recvInit(buf, n, MPI.DOUBLE, left, 0);
 * for (int step = 0; step < steps; step++) {
 *     r.start();
 *     ... compute ...
 *     r.waitFor();
 * }
 * r.free();
 * }</pre>
 */
public final class Prequest extends Request {
    /** Send modes. */
    static final int STANDARD = 0;
    static final int SYNCHRONOUS = 1;
    static final int BUFFERED = 2;

    private final Buffer buffer;
    private final int count;
    private final Datatype type;
    private final int peer;
    private final int tag;
    private final int mode;
    private final boolean receive;
    private boolean freed;

    Prequest(final Comm comm, final boolean receive, final int mode, final Buffer buffer, final int count,
             final Datatype type, final int peer, final int tag) {
        super(comm);
        this.receive = receive;
        this.mode = mode;
        this.buffer = buffer;
        this.count = count;
        this.type = type;
        this.peer = peer;
        this.tag = tag;
    }

    /** Starts the operation; the request must be inactive (never started, or completed and waited for). */
    public void start() throws MPIException {
        MPI.check();
        if (freed) {
            throw comm.fail(new MPIException(MPI.ERR_REQUEST, "the persistent request was freed"));
        }
        if (!inactive()) {
            throw comm.fail(new MPIException(MPI.ERR_REQUEST, "the persistent request is still active: wait for it "
                + "before starting it again"));
        }
        final Request r;
        if (receive) {
            r = comm.iRecv(buffer, count, type, peer, tag);
        } else if (mode == BUFFERED) {
            r = comm.ibSend(buffer, count, type, peer, tag);
        } else if (mode == SYNCHRONOUS) {
            r = comm.isSend(buffer, count, type, peer, tag);
        } else {
            r = comm.iSend(buffer, count, type, peer, tag);
        }
        kind = r.kind;
        op = r.op;
        span = r.span;
        capacity = r.capacity;
        source = r.source;
        done = r.done;
    }

    /** Starts every request. */
    public static void startAll(final Prequest[] requests) throws MPIException {
        for (final Prequest p : requests) {
            p.start();
        }
    }

    /** True once freed. */
    @Override
    public boolean isNull() {
        return freed;
    }

    /** Ends the persistent request (an operation in flight still completes). */
    @Override
    public void free() throws MPIException {
        super.free();
        freed = true;
    }
}
