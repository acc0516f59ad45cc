package mpi;

import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * Rank program: dynamic windows ({@link Win#Win(Info, Comm)}): each rank attaches direct buffers, the ranks
 * swap their addresses ({@link MPI#getAddress}) and put, get, accumulate, fetch-and-op and compare-and-swap at
 * those addresses; a second region with a derived target type; detach, after which the address is
 * unreachable; errors. Prints {@code OK dynwin ...} when every check held.
 */
public final class DynamicWinRanks {
    private DynamicWinRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final int size = w.getSize();
        final Checks c = new Checks("dynwin", rank);
        final int right = (rank + 1) % size;
        final int left = (rank - 1 + size) % size;

        final Win win = new Win(MPI.INFO_NULL, w);
        win.setErrhandler(MPI.ERRORS_RETURN);
        c.equal(0, (Integer) win.getAttr(MPI.WIN_SIZE), "a dynamic window has no memory of its own");
        final LongBuffer mem = MPI.newLongBuffer(16);
        win.attach(mem, 16);
        final long[] addrs = new long[size];
        w.allGather(new long[] {MPI.getAddress(mem)}, 1, MPI.LONG, addrs, 1, MPI.LONG);

        // put into the right neighbour's slot [rank % 8], get the left neighbour's slot 15 back
        final LongBuffer one = MPI.newLongBuffer(1);
        one.put(0, 100 + rank);
        mem.put(15, 7000 + rank);
        win.fence(0);
        win.put(one, 1, MPI.LONG, right, addrs[right] + 8L * (rank % 8), 1, MPI.LONG);
        final LongBuffer got = MPI.newLongBuffer(1);
        win.get(got, 1, MPI.LONG, left, addrs[left] + 8L * 15, 1, MPI.LONG);
        win.fence(0);
        c.equal(100 + left, mem.get(left % 8), "put at an absolute address");
        c.equal(7000 + left, got.get(0), "get at an absolute address");

        // accumulate: every rank adds 1..20 to rank 0's slot 9
        final LongBuffer add = MPI.newLongBuffer(1);
        for (int i = 1; i <= 20; i++) {
            add.put(0, i);
            win.accumulate(add, 1, MPI.LONG, 0, addrs[0] + 8L * 9, 1, MPI.LONG, MPI.SUM);
        }
        win.fence(0);
        if (rank == 0) {
            c.equal(210L * size, mem.get(9), "concurrent accumulates at an address");
        }

        // fetch-and-op tickets and one compare-and-swap winner under lockAll
        final LongBuffer inc = MPI.newLongBuffer(1);
        inc.put(0, 1);
        final LongBuffer ticket = MPI.newLongBuffer(1);
        final LongBuffer mine = MPI.newLongBuffer(1);
        mine.put(0, rank + 1);
        final LongBuffer zero = MPI.newLongBuffer(1);
        final LongBuffer old = MPI.newLongBuffer(1);
        win.lockAll(0);
        win.fetchAndOp(inc, ticket, MPI.LONG, 0, addrs[0] + 8L * 10, MPI.SUM);
        win.compareAndSwap(mine, zero, old, MPI.LONG, 0, addrs[0] + 8L * 11);
        win.unlockAll();
        final long[] tickets = new long[size];
        w.allGather(new long[] {ticket.get(0)}, 1, MPI.LONG, tickets, 1, MPI.LONG);
        java.util.Arrays.sort(tickets);
        for (int r = 0; r < size; r++) {
            c.equal(r, tickets[r], "fetchAndOp tickets at an address");
        }
        final long[] wins = {old.get(0) == 0 ? 1 : 0};
        w.allReduce(wins, 1, MPI.LONG, MPI.SUM);
        c.equal(1, wins[0], "one compareAndSwap wins");

        // a second region, reached with a vector target type
        final IntBuffer ints = MPI.newIntBuffer(8);
        win.attach(ints, 8);
        final long[] intAddrs = new long[size];
        w.allGather(new long[] {MPI.getAddress(ints)}, 1, MPI.LONG, intAddrs, 1, MPI.LONG);
        final Datatype every2 = Datatype.createVector(4, 1, 2, MPI.INT);
        every2.commit();
        final IntBuffer four = MPI.newIntBuffer(4);
        for (int i = 0; i < 4; i++) {
            four.put(i, rank * 10 + i);
        }
        win.fence(0);
        win.put(four, 4, MPI.INT, right, intAddrs[right], 1, every2);
        win.fence(0);
        c.that(ints.get(0) == left * 10 && ints.get(2) == left * 10 + 1 && ints.get(6) == left * 10 + 3
            && ints.get(1) == 0, "put through a vector type into the second region");
        c.fails(MPI.ERR_RMA_RANGE, "an address in no region", () -> win.put(one, 1, MPI.LONG, right, intAddrs[right]
            + 32, 1, MPI.LONG));
        c.fails(MPI.ERR_RMA_RANGE, "data reaching past a region", () -> win.put(four, 4, MPI.INT, right,
            intAddrs[right] + 20, 4, MPI.INT));

        // detach: the address is unreachable once the origin synchronized after it
        win.fence(0);
        win.detach(ints);
        w.barrier();
        c.fails(MPI.ERR_RMA_RANGE, "a detached region", () -> win.get(four, 1, MPI.INT, right, intAddrs[right], 1,
            MPI.INT));
        c.fails(MPI.ERR_RMA_RANGE, "detaching what is not attached", () -> win.detach(ints));
        c.fails(MPI.ERR_RMA_ATTACH, "an overlapping attach", () -> win.attach(MPI.slice(mem, 4), 2));
        win.fence(0);
        // the first region still works after the second went
        win.put(one, 1, MPI.LONG, right, addrs[right] + 8L * 12, 1, MPI.LONG);
        win.fence(0);
        c.equal(100 + left, mem.get(12), "the first region after the second was detached");
        win.detach(mem);
        win.free();

        final Win fixed = new Win(MPI.newIntBuffer(4), 4, 1, MPI.INFO_NULL, w);
        fixed.setErrhandler(MPI.ERRORS_RETURN);
        c.fails(MPI.ERR_RMA_FLAVOR, "attach to a window with memory", () -> fixed.attach(MPI.newIntBuffer(2), 2));
        fixed.free();
        c.done();
        MPI.Finalize();
    }
}
