package weft.job;

import weft.runtime.Runtime;
import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.ThreadMode;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.WeftException;

/**
 * The ucp resources a programming model needs to talk to the other ranks of its job: the job's
 * {@link Runtime}, one {@link Context} and one {@link Worker} per process, every rank's worker address, and
 * the endpoints to other ranks, each made the first time that rank is addressed (a job of N ranks that talks
 * to a few neighbours holds a few endpoints).
 *
 * <p>One instance per process, shared by the layers that use it (MPI, and OpenSHMEM beside it): each layer
 * {@link #acquire}s it when it initializes and {@link #release}s it when it finalizes; the resources are
 * closed when the last user releases them, so finalizing one layer leaves the other working.
 *
 * <pre>{@code
 * JobWorker job = JobWorker.acquire(ThreadMode.SERIALIZED);   // collective: exchanges worker addresses
 * Endpoint right = job.endpoint((job.rank() + 1) % job.size()); // connects now, on first use
 * right.sendTag(7, segment).await();
 * job.release();
 * }</pre>
 */
public final class JobWorker {
    private static JobWorker shared;
    private static int users;

    private final Runtime runtime;
    private final Context context;
    private final Worker worker;
    private final byte[][] addresses;
    private final java.util.concurrent.atomic.AtomicReferenceArray<Endpoint> endpoints;
    private int endpointCount;
    private volatile boolean closed;

    private JobWorker(final Runtime runtime, final Context context, final Worker worker, final byte[][] addresses) {
        this.runtime = runtime;
        this.context = context;
        this.worker = worker;
        this.addresses = addresses;
        this.endpoints = new java.util.concurrent.atomic.AtomicReferenceArray<>(addresses.length);
    }

    /**
     * Joins the job (or a singleton job of one rank when started without a launcher) and returns the process's
     * shared resources, making them on the first call. The first call is collective over the job: every rank
     * publishes its worker address and reads all the others (no endpoint is made).
     *
     * @param mode the worker's thread mode; a later caller gets the worker made by the first one
     * @throws WeftException when the job cannot be joined or no transport can be opened
     */
    public static synchronized JobWorker acquire(final ThreadMode mode) {
        if (shared != null && mode == ThreadMode.MULTI && shared.worker.threadMode() != ThreadMode.MULTI) {
            throw new WeftException(Status.INVALID_PARAM, "the process's worker was made in thread mode "
                + shared.worker.threadMode() + " by the layer initialized first; initialize that one for "
                + "multiple threads too (MPI.THREAD_MULTIPLE, Shmem.THREAD_MULTIPLE)");
        }
        if (shared == null) {
            final Runtime rt = Runtime.init();
            Context ctx = null;
            Worker w = null;
            try {
                // every feature either model needs: one context serves both
                ctx = Context.builder().features(Feature.TAG, Feature.AM, Feature.RMA, Feature.AMO32,
                    Feature.AMO64, Feature.WAKEUP).estimatedEndpoints(rt.size()).name("job-" + rt.rank()).build();
                w = ctx.newWorker(mode);
                final byte[][] all = rt.allgather(w.address());
                shared = new JobWorker(rt, ctx, w, all);
            } catch (final RuntimeException | Error e) {
                if (w != null) {
                    w.close();
                }
                if (ctx != null) {
                    ctx.close();
                }
                rt.close();
                throw e;
            }
        }
        users++;
        return shared;
    }

    /**
     * This user is done. The last release closes every endpoint, the worker and the context (peers see
     * their endpoints to this rank removed).
     */
    public void release() {
        synchronized (JobWorker.class) {
            if (closed || users == 0) {
                throw new WeftException(Status.CLOSED, "the job worker was already released by all its users");
            }
            if (--users > 0) {
                return;
            }
            closed = true;
            shared = null;
        }
        try {
            worker.close();
        } finally {
            try {
                context.close();
            } finally {
                runtime.close();
            }
        }
    }

    /** The job's runtime (rank, size, key-value exchange, abort). */
    public Runtime runtime() {
        return runtime;
    }

    /** This process's rank in the job. */
    public int rank() {
        return runtime.rank();
    }

    /** The number of ranks in the job. */
    public int size() {
        return runtime.size();
    }

    /** The process's ucp context. */
    public Context context() {
        return context;
    }

    /** The process's worker: every rank's messages arrive here. */
    public Worker worker() {
        return worker;
    }

    /**
     * The endpoint to {@code rank}, connected the first time it is asked for. Called on the worker's thread
     * (or under the worker's thread mode).
     *
     * @throws WeftException INVALID_PARAM for a rank outside the job, or the connection's error
     */
    public Endpoint endpoint(final int rank) {
        if (rank < 0 || rank >= addresses.length) {
            throw new WeftException(Status.INVALID_PARAM, "rank " + rank + " is outside the job of " + addresses.length
                + " ranks");
        }
        final Endpoint ep = endpoints.get(rank);
        return ep != null ? ep : connect(rank);
    }

    /** The endpoint to {@code rank} if one was made, else null (nothing is connected). */
    public Endpoint existingEndpoint(final int rank) {
        return rank < 0 || rank >= addresses.length ? null : endpoints.get(rank);
    }

    private synchronized Endpoint connect(final int rank) {
        Endpoint ep = endpoints.get(rank);
        if (ep == null) {
            if (closed) {
                throw new WeftException(Status.CLOSED, "the job worker is closed");
            }
            ep = worker.connect(addresses[rank]);
            endpoints.set(rank, ep);
            endpointCount++;
        }
        return ep;
    }

    /** The worker address of {@code rank} (for a layer that makes further workers of its own). */
    public byte[] address(final int rank) {
        if (rank < 0 || rank >= addresses.length) {
            throw new WeftException(Status.INVALID_PARAM, "rank " + rank + " is outside the job of " + addresses.length
                + " ranks");
        }
        return addresses[rank];
    }

    /** How many ranks this process has made an endpoint to so far. */
    public synchronized int endpointCount() {
        return endpointCount;
    }
}
