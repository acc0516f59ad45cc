package mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One request-based accumulate-family operation ({@link Win#rAccumulate}, {@link Win#rGetAccumulate}) as stages
 * of remote operations, each started when the previous one completed, as its {@link WinRequest} is tested or
 * waited for: take the target's accumulate mutex (compare-and-swap 0 to 1, again while another rank holds
 * it), read the target's blocks, hand their old content to the result buffer, combine and write back, flush,
 * release the mutex. The same stages as the blocking {@link WinAccess#readModifyWrite}, without blocking.
 */
final class WinAccumulate implements WinRequest.Step {
    private static final int LOCKING = 0;
    private static final int READING = 1;
    private static final int WRITING = 2;
    private static final int FLUSHING = 3;
    /** Lock attempts after which a retry first yields the CPU (the holder may share it). */
    private static final int SPINS = 16;

    private final WinAccess access;
    private final WinPeers peers;
    private final int rank;
    private final long disp;
    private final int count;
    private final Datatype type;
    private final MemorySegment in;
    private final Op op;
    private final Span result;
    private final int resultCount;
    private final Datatype resultType;
    /** The mutex's old value (the atomics' result). */
    private final MemorySegment word = Arena.ofAuto().allocate(8, 8);
    /** The target's content. */
    private MemorySegment target;
    private int stage;
    private int spins;

    WinAccumulate(final WinAccess access, final WinPeers peers, final int rank, final long disp, final int count,
                  final Datatype type, final MemorySegment in, final Op op, final Span result, final int resultCount,
                  final Datatype resultType) {
        this.access = access;
        this.peers = peers;
        this.rank = rank;
        this.disp = disp;
        this.count = count;
        this.type = type;
        this.in = in;
        this.op = op;
        this.result = result;
        this.resultCount = resultCount;
        this.resultType = resultType;
    }

    /** Starts the first stage on {@code r}. */
    void start(final WinRequest r) {
        r.add(peers.startCompareSwap(rank, WinPeers.ACC_MUTEX, 0, 1, word));
        r.then(this);
    }

    @Override
    public void run(final WinRequest r) throws MPIException {
        switch (stage) {
            case LOCKING -> {
                if (word.get(ValueLayout.JAVA_LONG, 0) != 0) {
                    if (++spins > SPINS) {
                        Thread.yield();
                    }
                    // another request holds it (of another rank, or of this one: step that one first)
                    r.add(peers.startCompareSwap(rank, WinPeers.ACC_MUTEX, 0, 1, word));
                    r.thenLater(this);
                    return;
                }
                stage = READING;
                target = Coll.scratch(count * type.size);
                access.transfer(rank, disp, count, type, target, true, r);
            }
            case READING -> {
                if (result != null) {
                    TypeCursor.unpack(target, 0, result, resultCount, resultType);
                }
                if (op.code == Reductions.NO_OP) {
                    unlock(r);
                    return;
                }
                op.apply(in, 0, target, 0, count, type);
                stage = WRITING;
                access.transfer(rank, disp, count, type, target, false, r);
            }
            case WRITING -> {
                stage = FLUSHING; // the writes land before the mutex goes
                r.add(peers.startFlush(rank));
            }
            default -> {
                unlock(r);
                return;
            }
        }
        r.then(this);
    }

    /** The last stage: releases the mutex; the request completes with it. */
    private void unlock(final WinRequest r) {
        r.add(peers.startFetchAdd(rank, WinPeers.ACC_MUTEX, -1, word));
    }
}
