package mpi;

import weft.job.JobWorker;
import weft.ucp.Worker;

/**
 * The process's MPI state between {@code MPI.Init} and {@code MPI.Finalize}: the shared job worker, the
 * thread level, the next free context id and the attached send buffer.
 */
final class Session {
    final JobWorker job;
    final Worker worker;
    final int threadLevel;
    final Thread mainThread;
    final BufferedSends buffered = new BufferedSends();
    /** Scratch memory the collectives reuse (locked only under THREAD_MULTIPLE). */
    final ScratchPool scratch;
    /** Where collectives change algorithm ({@code WEFT_MPI_*}). */
    final weft.mpi.MpiConfig.Thresholds thresholds =
        weft.mpi.MpiConfig.Thresholds.of(weft.ucs.config.Config.global());
    /** The active-message matcher when {@code WEFT_MPI_TRANSPORT=am}; null on the tag-matching path. */
    final AmMatcher am;
    /** Next free even context id; every rank allocates in the same order, agreeing through an allreduce. */
    private int nextCid;

    Session(final JobWorker job, final int threadLevel, final int firstFreeCid, final boolean activeMessages) {
        this.job = job;
        this.worker = job.worker();
        this.threadLevel = threadLevel;
        this.scratch = new ScratchPool(threadLevel == MPI.THREAD_MULTIPLE);
        SpanCache.CACHES.shareAcrossThreads(threadLevel != MPI.THREAD_MULTIPLE);
        UcpOp.POOLS.shareAcrossThreads(threadLevel != MPI.THREAD_MULTIPLE);
        this.mainThread = Thread.currentThread();
        this.nextCid = firstFreeCid;
        this.am = activeMessages ? new AmMatcher(worker) : null;
        Progress.configure(weft.ucs.config.Config.global().get(weft.mpi.MpiConfig.YIELD_WHEN_IDLE),
            job.runtime().localSize(), weft.ucs.config.Config.global().get(weft.mpi.MpiConfig.WARMUP_YIELD));
    }

    /** The lowest context id this process has not used yet. */
    synchronized int proposeCid() {
        return nextCid;
    }

    /** Marks the pair {@code cid, cid + 1} taken (the value every member agreed on). */
    synchronized void takeCid(final int cid) throws MPIException {
        if (cid + 1 >= Tags.MAX_CID) {
            throw new MPIException(MPI.ERR_COMM, "no communicator context id left (" + Tags.MAX_CID / 2
                + " communicators made in this job)");
        }
        nextCid = Math.max(nextCid, cid + 2);
    }
}
