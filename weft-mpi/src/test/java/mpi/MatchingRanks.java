package mpi;

import java.nio.IntBuffer;

/**
 * Rank program (3 ranks): the matching rules where the two message paths ({@code WEFT_MPI_TRANSPORT}) differ
 * most in how they work: posted receives taken in posting order across specific and ANY_SOURCE receives, a
 * cancelled receive among posted ones, thousands of unexpected messages from two sources received with
 * wildcards, rendezvous messages that arrive before their receive (received, probed, mProbed, truncated, and
 * into a derived type), and synchronous sends of 0 bytes and of rendezvous size. Prints {@code OK match ...}.
 */
public final class MatchingRanks {
    private static final Intracomm W = MPI.COMM_WORLD;
    /** Ints in a message that goes rendezvous on every transport. */
    private static final int BIG = 300_000;

    private MatchingRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final int rank = W.getRank();
        final Checks c = new Checks("match", rank);
        c.configuredPath();
        postedOrder(c, rank);
        W.barrier();
        manyUnexpected(c, rank);
        W.barrier();
        unexpectedRendezvous(c, rank);
        W.barrier();
        synchronous(c, rank);
        W.barrier();
        c.done();
        MPI.Finalize();
    }

    /** Receives posted before the messages: the oldest matching one wins, wildcard or not; cancel skips one. */
    private static void postedOrder(final Checks c, final int rank) throws MPIException {
        if (rank == 0) {
            final IntBuffer a = MPI.newIntBuffer(1);
            final IntBuffer b = MPI.newIntBuffer(1);
            final IntBuffer x = MPI.newIntBuffer(1);
            final IntBuffer d = MPI.newIntBuffer(1);
            final Request cancelled = W.iRecv(x, 1, MPI.INT, 1, 5);
            final Request wild = W.iRecv(a, 1, MPI.INT, MPI.ANY_SOURCE, 5);
            final Request exact = W.iRecv(b, 1, MPI.INT, 1, 5);
            final Request anyTag = W.iRecv(d, 1, MPI.INT, 1, MPI.ANY_TAG);
            cancelled.cancel();
            c.that(cancelled.waitStatus().isCancelled(), "a posted receive cancelled before its message");
            W.send(new int[1], 1, MPI.INT, 1, 0); // go
            final Status sw = wild.waitStatus();
            final Status se = exact.waitStatus();
            final Status sd = anyTag.waitStatus();
            c.that(a.get(0) == 100 && sw.getSource() == 1, "the older ANY_SOURCE receive takes the first message");
            c.that(b.get(0) == 101 && se.getSource() == 1, "the younger exact receive takes the second");
            c.that(d.get(0) == 102 && sd.getTag() == 6, "ANY_TAG takes the third (tag 6)");
            c.equal(0, x.get(0), "the cancelled receive got nothing");
        } else if (rank == 1) {
            W.recv(new int[1], 1, MPI.INT, 0, 0);
            W.send(new int[] {100}, 1, MPI.INT, 0, 5);
            W.send(new int[] {101}, 1, MPI.INT, 0, 5);
            W.send(new int[] {102}, 1, MPI.INT, 0, 6);
        }
    }

    /** Two ranks each send 3000 messages before rank 0 receives any: per source they come out in order. */
    private static void manyUnexpected(final Checks c, final int rank) throws MPIException {
        final int n = 3000;
        if (rank == 0) {
            W.barrier(); // every message is sent (or on its way) before the first receive
            final int[] next = new int[3];
            final int[] m = new int[2];
            for (int i = 0; i < 2 * n; i++) {
                final Status s = W.recv(m, 2, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
                final int src = s.getSource();
                c.that(src == 1 || src == 2, "ANY_SOURCE source " + src);
                if (m[1] != next[src] || s.getTag() != m[1] % 7 || m[0] != src) {
                    c.that(false, "message " + next[src] + " of rank " + src + " in order (got " + m[1] + ", tag "
                        + s.getTag() + ")");
                }
                next[src]++;
            }
            c.that(next[1] == n && next[2] == n, "every message of both ranks");
        } else {
            final Request[] rs = new Request[n];
            final IntBuffer all = MPI.newIntBuffer(2 * n);
            for (int i = 0; i < n; i++) {
                all.put(2 * i, rank).put(2 * i + 1, i);
                rs[i] = W.iSend(MPI.slice(all, 2 * i), 2, MPI.INT, 0, i % 7);
            }
            W.barrier();
            Request.waitAll(rs);
        }
    }

    /** Rendezvous-size messages that arrive before any receive: probe, mProbe, truncation, derived types. */
    private static void unexpectedRendezvous(final Checks c, final int rank) throws MPIException {
        final Intracomm d = W.dup();
        d.setErrhandler(MPI.ERRORS_RETURN);
        if (rank == 1) {
            final IntBuffer big = MPI.newIntBuffer(BIG);
            for (int i = 0; i < BIG; i++) {
                big.put(i, i);
            }
            final Request[] rs = {d.iSend(big, BIG, MPI.INT, 0, 1), d.iSend(big, BIG, MPI.INT, 0, 2),
                d.iSend(big, BIG, MPI.INT, 0, 3), d.iSend(big, BIG, MPI.INT, 0, 4)};
            d.barrier();
            Request.waitAll(rs);
        } else if (rank == 0) {
            d.barrier();
            final Status p = d.probe(1, 2);
            c.equal(BIG, p.getCount(MPI.INT), "probe of a rendezvous message counts it whole");
            final Message m = new Message();
            final Status ms = m.mProbe(1, 2, d);
            c.equal(BIG, ms.getCount(MPI.INT), "mProbe of a rendezvous message");
            final int[] got = new int[BIG];
            c.fails(MPI.ERR_TRUNCATE, "a rendezvous message into a short buffer",
                () -> d.recv(new int[10], 10, MPI.INT, 1, 1));
            m.mRecv(got, BIG, MPI.INT);
            c.that(got[0] == 0 && got[BIG - 1] == BIG - 1, "mRecv of a rendezvous message");
            final Datatype everyOther = Datatype.createVector(BIG, 1, 2, MPI.INT);
            everyOther.commit();
            final IntBuffer spread = MPI.newIntBuffer(2 * BIG);
            d.iRecv(spread, 1, everyOther, 1, 3).waitFor();
            c.that(spread.get(0) == 0 && spread.get(2) == 1 && spread.get(2 * BIG - 2) == BIG - 1
                && spread.get(1) == 0, "a rendezvous message into a vector type");
            d.recv(got, BIG, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
            c.that(got[BIG - 1] == BIG - 1, "the last one with wildcards");
        } else {
            d.barrier();
        }
        d.free();
    }

    /** Synchronous sends complete only once matched: empty and rendezvous-size ones too. */
    private static void synchronous(final Checks c, final int rank) throws MPIException {
        if (rank == 2) {
            final Request empty = W.isSend(MPI.newIntBuffer(1), 0, MPI.INT, 0, 30);
            final Request big = W.isSend(MPI.newIntBuffer(BIG), BIG, MPI.INT, 0, 31);
            for (int i = 0; i < 200; i++) {
                c.that(!empty.test(), "an empty isSend incomplete before the receive");
            }
            W.send(new int[1], 1, MPI.INT, 0, 32); // go
            empty.waitFor();
            big.waitFor();
        } else if (rank == 0) {
            W.recv(new int[1], 1, MPI.INT, 2, 32);
            final Status s = W.recv(new int[1], 1, MPI.INT, 2, 30);
            c.equal(0, s.getCount(MPI.INT), "the empty synchronous message");
            final int[] got = new int[BIG];
            c.equal(BIG, W.recv(got, BIG, MPI.INT, 2, 31).getCount(MPI.INT), "the large synchronous message");
        }
    }
}
