package mpi;

import weft.ucp.Worker;

/**
 * A point-to-point message in flight, whichever path carries it: a ucp tag send or receive ({@link UcpOp}),
 * an active-message send ({@link UcpOp} too) or a receive of the active-message matcher ({@link AmRecv}).
 * Requests, collective schedules and buffered sends hold these, so they work the same on both paths
 * ({@code WEFT_MPI_TRANSPORT}). Handles are pooled: {@link #release} exactly once, then drop the reference.
 */
abstract class InFlight {
    /** True once finished (success or error); does not progress the worker. */
    abstract boolean isCompleted();

    /** IN_PROGRESS until completed, then OK or the error (CANCELED, MESSAGE_TRUNCATED ...). */
    abstract weft.ucs.Status status();

    /** A receive's matched message tag ({@link Tags} layout). */
    abstract long senderTag();

    /** A receive's message length as the sender sent it (more than fit on truncation). */
    abstract long length();

    /** Gives the handle back (an unfinished operation still finishes). */
    abstract void release();

    /** Cancels a receive that has not matched yet (it completes CANCELED); a no-op for anything else. */
    abstract void cancel(Worker w);

    /** Progresses the worker until completed; the status. */
    abstract weft.ucs.Status awaitStatus();
}
