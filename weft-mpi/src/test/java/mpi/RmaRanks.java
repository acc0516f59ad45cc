package mpi;

import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * Rank program: one-sided communication through {@link Win}: fence epochs, accumulate atomicity under
 * contention, fetch-and-op and compare-and-swap, exclusive locks protecting a read-modify-write, post/start/
 * complete/wait, a derived target type, and errors. Prints {@code OK rma ...} when every check held.
 */
public final class RmaRanks {
    private RmaRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final Checks c = new Checks("rma", rank);
        final LongBuffer mem = MPI.newLongBuffer(64);
        final Win win = new Win(mem, 64, 1, MPI.INFO_NULL, w);
        final int right = (rank + 1) % size;
        final int left = (rank - 1 + size) % size;

        // fence epoch: put my rank into my right neighbour's slot [rank], get my left neighbour's slot back
        final LongBuffer one = MPI.newLongBuffer(1);
        one.put(0, 1000 + rank);
        win.fence(0);
        win.put(one, 1, MPI.LONG, right, rank, 1, MPI.LONG);
        win.fence(0);
        c.equal(1000 + left, mem.get(left), "put under fence");
        final LongBuffer got = MPI.newLongBuffer(1);
        win.get(got, 1, MPI.LONG, left, (left - 1 + size) % size, 1, MPI.LONG);
        win.fence(0);
        c.equal(1000 + (left - 1 + size) % size, got.get(0), "get under fence");

        // accumulate: every rank adds 1..50 to rank 0's slot 40, all at once
        final LongBuffer add = MPI.newLongBuffer(1);
        for (int i = 1; i <= 50; i++) {
            add.put(0, i);
            win.accumulate(add, 1, MPI.LONG, 0, 40, 1, MPI.LONG, MPI.SUM);
        }
        win.fence(0);
        if (rank == 0) {
            c.equal(size * 1275L, mem.get(40), "concurrent accumulates are atomic");
        }

        // fetch-and-op: each rank takes a ticket from rank 0's slot 41; the tickets are 0..size-1
        final LongBuffer inc = MPI.newLongBuffer(1);
        inc.put(0, 1);
        final LongBuffer ticket = MPI.newLongBuffer(1);
        win.lockAll(0);
        win.fetchAndOp(inc, ticket, MPI.LONG, 0, 41, MPI.SUM);
        win.unlockAll();
        final long[] tickets = new long[size];
        w.allGather(new long[] {ticket.get(0)}, 1, MPI.LONG, tickets, 1, MPI.LONG);
        java.util.Arrays.sort(tickets);
        for (int r = 0; r < size; r++) {
            c.equal(r, tickets[r], "fetchAndOp tickets are distinct");
        }

        // compare-and-swap: exactly one rank turns rank 0's slot 42 from 0 into its rank + 1
        final LongBuffer mineVal = MPI.newLongBuffer(1);
        mineVal.put(0, rank + 1);
        final LongBuffer zero = MPI.newLongBuffer(1);
        final LongBuffer old = MPI.newLongBuffer(1);
        win.lock(MPI.LOCK_SHARED, 0, 0);
        win.compareAndSwap(mineVal, zero, old, MPI.LONG, 0, 42);
        win.unlock(0);
        final long[] wins = {old.get(0) == 0 ? 1 : 0};
        w.allReduce(wins, 1, MPI.LONG, MPI.SUM);
        c.equal(1, wins[0], "one compareAndSwap wins");

        // exclusive locks make a get-increment-put on rank 0's slot 43 safe
        for (int i = 0; i < 20; i++) {
            win.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
            final LongBuffer v = MPI.newLongBuffer(1);
            win.get(v, 1, MPI.LONG, 0, 43, 1, MPI.LONG);
            v.put(0, v.get(0) + 1);
            win.put(v, 1, MPI.LONG, 0, 43, 1, MPI.LONG);
            win.unlock(0);
        }
        win.fence(0);
        if (rank == 0) {
            c.equal(20L * size, mem.get(43), "exclusive lock protects read-modify-write");
        }

        // post/start/complete/wait: rank 0 exposes, the others write slot 50 + rank
        final Group world = w.getGroup();
        if (rank == 0) {
            win.post(world.excl(new int[] {0}), 0);
            win.waitFor();
            for (int r = 1; r < size; r++) {
                c.equal(5000 + r, mem.get(50 + r), "PSCW put from " + r);
            }
        } else {
            win.start(world.incl(new int[] {0}), 0);
            final LongBuffer v = MPI.newLongBuffer(1);
            v.put(0, 5000 + rank);
            win.put(v, 1, MPI.LONG, 0, 50 + rank, 1, MPI.LONG);
            win.complete();
        }
        win.fence(0);

        // a derived target type: every other slot from 10 on
        final Datatype stride2 = Datatype.createVector(3, 1, 2, MPI.LONG);
        stride2.commit();
        final LongBuffer three = MPI.newLongBuffer(3);
        three.put(0, 7).put(1, 8).put(2, 9);
        win.put(three, 3, MPI.LONG, right, 10, 1, stride2);
        win.fence(0);
        c.that(mem.get(10) == 7 && mem.get(12) == 8 && mem.get(14) == 9, "put into a vector target");

        // getAccumulate with NO_OP reads atomically
        final LongBuffer read = MPI.newLongBuffer(1);
        win.getAccumulate(one, 1, MPI.LONG, read, 1, MPI.LONG, 0, 43, 1, MPI.LONG, MPI.NO_OP);
        c.equal(20L * size, read.get(0), "getAccumulate NO_OP");
        win.fence(0);

        requestBased(win, c, rank, size, mem);

        // errors
        win.setErrhandler(MPI.ERRORS_RETURN);
        c.fails(MPI.ERR_DISP, "rGet outside the window", () -> win.rGet(one, 1, MPI.LONG, right, 64, 1, MPI.LONG));
        c.fails(MPI.ERR_DISP, "put outside the window", () -> win.put(one, 1, MPI.LONG, right, 64, 1, MPI.LONG));
        c.fails(MPI.ERR_RMA_SYNC, "unlock without lock", () -> win.unlock(right));
        boolean refused = false;
        try {
            win.put(LongBuffer.allocate(1), 1, MPI.LONG, right, 0, 1, MPI.LONG);
        } catch (final IllegalArgumentException e) {
            refused = true;
        }
        c.that(refused, "a heap origin buffer is refused");
        final IntBuffer small = MPI.newIntBuffer(4);
        final Win w2 = new Win(4, 1, MPI.INFO_NULL, w, small, Win.FLAVOR_SHARED);
        w2.fence(0);
        final IntBuffer mine = MPI.newIntBuffer(1);
        mine.put(0, rank * 7);
        w2.accumulate(mine, 1, MPI.INT, 0, 3, 1, MPI.INT, MPI.MAX);
        w2.fence(0);
        if (rank == 0) {
            c.equal((size - 1) * 7L, small.get(3), "MAX accumulate into an int window");
        }
        w2.free();
        win.free();
        c.done();
        MPI.Finalize();
    }

    /**
     * rGet and rPut: requests in flight at once (over tcp the first rGet has not completed when it returns),
     * an rGet into a strided origin, an rPut from a contiguous origin made visible by a flush.
     */
    private static void requestBased(final Win win, final Checks c, final int rank, final int size,
                                     final LongBuffer mem) throws MPIException {
        final int right = (rank + 1) % size;
        for (int i = 0; i < 8; i++) {
            mem.put(20 + i, rank * 100L + i);
        }
        win.fence(0);
        win.lockAll(0);
        final LongBuffer all = MPI.newLongBuffer(8 * size);
        final Request[] rq = new Request[size];
        rq[right] = win.rGet(MPI.slice(all, 8 * right), 8, MPI.LONG, right, 20, 8, MPI.LONG);
        if ("tcp".equals(System.getenv("WEFT_TLS")) && right != rank) {
            c.that(!rq[right].op.isCompleted(), "an rGet over tcp returns before its data arrive");
        }
        for (int t = 0; t < size; t++) {
            if (t != right) {
                rq[t] = win.rGet(MPI.slice(all, 8 * t), 8, MPI.LONG, t, 20, 8, MPI.LONG);
            }
        }
        final LongBuffer each = MPI.newLongBuffer(64);
        final Request[] many = new Request[64];
        for (int i = 0; i < 64; i++) {
            many[i] = win.rGet(MPI.slice(each, i), 1, MPI.LONG, right, 20 + i % 8, 1, MPI.LONG);
        }
        Request.waitAll(rq);
        Request.waitAll(many);
        boolean ok = true;
        for (int t = 0; t < size; t++) {
            for (int i = 0; i < 8; i++) {
                ok &= all.get(8 * t + i) == t * 100L + i;
            }
        }
        c.that(ok, "rGets to every rank in flight at once");
        ok = true;
        for (int i = 0; i < 64; i++) {
            ok &= each.get(i) == right * 100L + i % 8;
        }
        c.that(ok, "64 rGets to one rank in flight at once");
        final Datatype stride2 = Datatype.createVector(3, 1, 2, MPI.LONG);
        stride2.commit();
        final LongBuffer spread = MPI.newLongBuffer(6);
        win.rGet(spread, 1, stride2, right, 21, 3, MPI.LONG).waitFor();
        c.that(spread.get(0) == right * 100L + 1 && spread.get(2) == right * 100L + 2
            && spread.get(4) == right * 100L + 3 && spread.get(1) == 0, "an rGet into a strided origin");
        final LongBuffer src = MPI.newLongBuffer(4);
        for (int i = 0; i < 4; i++) {
            src.put(i, 7000L + rank * 10 + i);
        }
        win.rPut(src, 4, MPI.LONG, right, 30, 4, MPI.LONG).waitFor();
        win.flush(right);
        // accumulates in flight: 50 from every rank into rank 0's slot 44, 10 tickets each from slot 45, and
        // one never waited for before the flush that must complete it
        final LongBuffer adds = MPI.newLongBuffer(50);
        final Request[] acc = new Request[50];
        for (int i = 0; i < 50; i++) {
            adds.put(i, i + 1);
            acc[i] = win.rAccumulate(MPI.slice(adds, i), 1, MPI.LONG, 0, 44, 1, MPI.LONG, MPI.SUM);
        }
        final LongBuffer oneEach = MPI.newLongBuffer(1);
        oneEach.put(0, 1);
        final LongBuffer tickets = MPI.newLongBuffer(10);
        final Request[] fetch = new Request[10];
        for (int i = 0; i < 10; i++) {
            fetch[i] = win.rGetAccumulate(oneEach, 1, MPI.LONG, MPI.slice(tickets, i), 1, MPI.LONG, 0, 45, 1,
                MPI.LONG, MPI.SUM);
        }
        final LongBuffer thousand = MPI.newLongBuffer(1);
        thousand.put(0, 1000);
        final Request late = win.rAccumulate(thousand, 1, MPI.LONG, 0, 46, 1, MPI.LONG, MPI.SUM);
        win.flush(0);
        MPI.COMM_WORLD.barrier();
        if (rank == 0) {
            c.equal(size * 1000L, mem.get(46), "a flush completes an rAccumulate nobody waited for");
        }
        late.waitFor();
        Request.waitAll(acc);
        Request.waitAll(fetch);
        win.unlockAll();
        win.fence(0);
        final int left = (rank - 1 + size) % size;
        c.that(mem.get(30) == 7000L + left * 10 && mem.get(33) == 7000L + left * 10 + 3, "an rPut, flushed");
        if (rank == 0) {
            c.equal(size * 1275L, mem.get(44), "rAccumulates in flight at once are atomic");
        }
        final long[] mine = new long[10];
        tickets.get(0, mine);
        final long[] all10 = new long[10 * size];
        MPI.COMM_WORLD.allGather(mine, 10, MPI.LONG, all10, 10, MPI.LONG);
        java.util.Arrays.sort(all10);
        boolean distinct = true;
        for (int i = 0; i < all10.length; i++) {
            distinct &= all10[i] == i;
        }
        c.that(distinct, "rGetAccumulate tickets in flight at once are distinct");
        win.fence(0);
        // rank 1's rAccumulate, not waited for, may hold rank 0's accumulate mutex while rank 1 sits in a barrier
        // that the others reach only after their blocking accumulates to rank 0: the barrier's waits move it on
        win.lockAll(0);
        Request held = null;
        if (rank == 1) {
            held = win.rAccumulate(thousand, 1, MPI.LONG, 0, 47, 1, MPI.LONG, MPI.SUM);
        } else {
            win.accumulate(thousand, 1, MPI.LONG, 0, 47, 1, MPI.LONG, MPI.SUM);
        }
        MPI.COMM_WORLD.barrier();
        if (held != null) {
            held.waitFor();
        }
        win.unlockAll();
        win.fence(0);
        if (rank == 0) {
            c.equal(size * 1000L, mem.get(47), "an rAccumulate in flight during a barrier");
        }
        win.fence(0);
    }
}
