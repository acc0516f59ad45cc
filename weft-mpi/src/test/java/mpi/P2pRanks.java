package mpi;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;

/**
 * Rank program: point-to-point semantics, at any size of 2 or more (most pairwise checks between ranks 0
 * and 1, the others join the ring and the wildcard checks). Prints {@code OK p2p ...} when every check held.
 */
public final class P2pRanks {
    private static final Intracomm W = MPI.COMM_WORLD;
    /** Ranks 0 and 1 (same ranks as in the world): the pairwise checks dup it. */
    private static Intracomm pair;

    private P2pRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final int rank = W.getRank();
        final int size = W.getSize();
        final Checks c = new Checks("p2p", rank);
        c.configuredPath();
        c.equal(0, MPI.session().job.endpointCount(), "no endpoint is made at init");

        ring(c, rank, size);
        // the right neighbour it sent to, and the left one if a receive waited long enough to watch it
        final int eps = MPI.session().job.endpointCount();
        c.that(eps >= 1 && eps <= 2, "after the ring, endpoints to the neighbours only: " + eps);
        wildcards(c, rank, size);
        W.barrier();
        pair = W.split(rank < 2 ? 0 : MPI.UNDEFINED, rank);
        c.that(pair.isNull() == rank >= 2, "split with UNDEFINED gives a null communicator");
        if (rank < 2) {
            final int peer = 1 - rank;
            ordering(c, rank, peer);
            truncation(c, rank, peer);
            procNull(c);
            nonBlocking(c, rank, peer);
            probeAndCancel(c, rank, peer);
            synchronous(c, rank, peer);
            buffered(c, rank, peer);
            replace(c, rank, peer);
            datatypes(c, rank, peer);
            large(c, rank, peer);
            persistentAndMatched(c, rank, peer);
        }
        W.barrier();
        c.done();
        MPI.Finalize();
    }

    /** Each rank sends its rank to the right and receives from the left. */
    private static void ring(final Checks c, final int rank, final int size) throws MPIException {
        final int[] out = {rank * 10};
        final int[] in = {-1};
        final Status s = W.sendRecv(out, 1, MPI.INT, (rank + 1) % size, 3, in, 1, MPI.INT, (rank - 1 + size) % size, 3);
        c.equal((rank - 1 + size) % size * 10, in[0], "ring value");
        c.equal((rank - 1 + size) % size, s.getSource(), "ring status source");
        c.equal(3, s.getTag(), "ring status tag");
        c.equal(1, s.getCount(MPI.INT), "ring status count");
    }

    /** Every rank > 0 sends tags 10, 11, 12 to rank 0, which receives them with and without wildcards. */
    private static void wildcards(final Checks c, final int rank, final int size) throws MPIException {
        if (rank != 0) {
            for (int t = 10; t <= 12; t++) {
                W.send(new int[] {rank, t}, 2, MPI.INT, 0, t);
            }
            return;
        }
        final int[] m = new int[2];
        // tag 12 from rank 1 first, although it was sent last
        Status s = W.recv(m, 2, MPI.INT, 1, 12);
        c.that(m[0] == 1 && m[1] == 12 && s.getTag() == 12, "exact match out of send order");
        // ANY_TAG from rank 1: the remaining ones in send order (non-overtaking)
        s = W.recv(m, 2, MPI.INT, 1, MPI.ANY_TAG);
        c.that(m[1] == 10 && s.getTag() == 10 && s.getSource() == 1, "ANY_TAG takes the oldest (10)");
        s = W.recv(m, 2, MPI.INT, 1, MPI.ANY_TAG);
        c.that(m[1] == 11 && s.getTag() == 11, "ANY_TAG then 11");
        // the other ranks' messages with ANY_SOURCE: per source, tags in order
        final int[] next = new int[size];
        java.util.Arrays.fill(next, 10);
        for (int i = 0; i < 3 * (size - 2); i++) {
            s = W.recv(m, 2, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
            c.that(s.getSource() >= 2 && s.getSource() < size, "ANY_SOURCE source " + s.getSource());
            c.equal(s.getSource(), m[0], "payload names the source");
            c.equal(next[s.getSource()]++, s.getTag(), "tags of one source arrive in order");
        }
    }

    /** 200 messages of mixed sizes (eager and rendezvous) with one tag arrive in send order. */
    private static void ordering(final Checks c, final int rank, final int peer) throws MPIException {
        final int big = 200_000;
        final int[] buf = new int[big];
        for (int i = 0; i < 200; i++) {
            final int n = i % 7 == 0 ? big : 1 + i % 13;
            if (rank == 1) {
                buf[0] = i;
                buf[n - 1] = i;
                W.send(buf, n, MPI.INT, peer, 5);
            } else {
                final Status s = W.recv(buf, big, MPI.INT, peer, 5);
                c.that(buf[0] == i && buf[n - 1] == i && s.getCount(MPI.INT) == n, "message " + i + " in order with "
                    + n + " ints (got first " + buf[0] + ", count " + s.getCount(MPI.INT) + ")");
            }
        }
    }

    /** A message longer than the receive buffer: ERR_TRUNCATE, and the communicator goes on working. */
    private static void truncation(final Checks c, final int rank, final int peer) throws MPIException {
        final Intracomm d = pair.dup();
        d.setErrhandler(MPI.ERRORS_RETURN);
        if (rank == 1) {
            d.send(new int[10], 10, MPI.INT, peer, 1);
            d.send(new int[] {42}, 1, MPI.INT, peer, 2);
        } else {
            c.fails(MPI.ERR_TRUNCATE, "10 ints into 5", () -> d.recv(new int[5], 5, MPI.INT, peer, 1));
            final int[] one = new int[1];
            d.recv(one, 1, MPI.INT, peer, 2);
            c.equal(42, one[0], "the next message after a truncation");
        }
        d.free();
        c.that(d.isNull(), "freed communicator is null");
    }

    private static void procNull(final Checks c) throws MPIException {
        W.send(new int[1], 1, MPI.INT, MPI.PROC_NULL, 0);
        final Status s = W.recv(new int[1], 1, MPI.INT, MPI.PROC_NULL, 0);
        c.equal(MPI.PROC_NULL, s.getSource(), "PROC_NULL receive source");
        c.equal(0, s.getCount(MPI.INT), "PROC_NULL receive count");
        c.that(W.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, MPI.PROC_NULL, 0).test(), "PROC_NULL iRecv completes");
    }

    private static void nonBlocking(final Checks c, final int rank, final int peer) throws MPIException {
        final IntBuffer[] in = new IntBuffer[4];
        final Request[] rs = new Request[8];
        for (int i = 0; i < 4; i++) {
            in[i] = MPI.newIntBuffer(16);
            rs[i] = W.iRecv(in[i], 16, MPI.INT, peer, 20 + i);
        }
        for (int i = 0; i < 4; i++) {
            final IntBuffer out = MPI.newIntBuffer(16);
            for (int k = 0; k < 16; k++) {
                out.put(k, rank * 1000 + i * 16 + k);
            }
            rs[4 + i] = W.iSend(out, 16, MPI.INT, peer, 23 - i); // sent in reverse tag order
        }
        final int first = Request.waitAny(rs);
        c.that(first >= 0 && first < 8, "waitAny index " + first);
        final Status[] all = Request.waitAllStatus(rs);
        for (int i = 0; i < 4; i++) {
            c.equal(peer * 1000 + (3 - i) * 16 + 15, in[i].get(15), "iRecv " + i + " data");
            if (i != first) {
                c.equal(20 + i, all[i].getTag(), "iRecv " + i + " tag");
            }
            c.that(rs[i].isNull(), "a completed request is null");
        }
        c.that(Request.testAll(rs), "testAll of null requests");
        c.equal(MPI.UNDEFINED, Request.waitAny(rs), "waitAny of null requests");
        // heap buffers are refused by non-blocking calls
        boolean refused = false;
        try {
            W.iSend(IntBuffer.allocate(4), 4, MPI.INT, peer, 0);
        } catch (final IllegalArgumentException e) {
            refused = e.getMessage().contains("direct");
        }
        c.that(refused, "iSend of a heap buffer: IllegalArgumentException naming direct buffers");
        // waitSome / testSome
        final Request r1 = W.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, peer, 30);
        final Request r2 = W.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, peer, 31);
        W.send(new int[] {1}, 1, MPI.INT, peer, 30);
        W.send(new int[] {2}, 1, MPI.INT, peer, 31);
        int got = 0;
        final Request[] two = {r1, r2};
        while (got < 2) {
            got += Request.waitSome(two).length;
        }
        c.that(Request.testSome(two) == null, "testSome of null requests is null (outcount MPI_UNDEFINED)");
    }

    private static void probeAndCancel(final Checks c, final int rank, final int peer) throws MPIException {
        if (rank == 1) {
            W.send(new int[7], 7, MPI.INT, peer, 77);
        } else {
            final Status p = W.probe(MPI.ANY_SOURCE, 77);
            c.equal(peer, p.getSource(), "probe source");
            c.equal(7, p.getCount(MPI.INT), "probe count");
            c.that(W.iProbe(peer, 78) == null, "iProbe of nothing is null");
            final Status again = W.iProbe(peer, MPI.ANY_TAG);
            c.that(again != null && again.getTag() == 77, "iProbe sees the probed message still there");
            W.recv(new int[7], 7, MPI.INT, peer, 77);
        }
        final Request r = W.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, peer, 999);
        r.cancel();
        final Status s = r.waitStatus();
        c.that(s.isCancelled(), "a cancelled receive reports it");
    }

    /** A synchronous send cannot complete before the receiver posts its receive. */
    private static void synchronous(final Checks c, final int rank, final int peer) throws MPIException {
        if (rank == 1) {
            final IntBuffer b = MPI.newIntBuffer(1);
            b.put(0, 5);
            final Request s = W.isSend(b, 1, MPI.INT, peer, 40);
            for (int i = 0; i < 200; i++) {
                c.that(!s.test(), "isSend incomplete while the receiver has not posted");
            }
            W.send(new int[1], 1, MPI.INT, peer, 41); // go
            s.waitFor();
            W.sSend(new int[] {6}, 1, MPI.INT, peer, 42);
        } else {
            W.recv(new int[1], 1, MPI.INT, peer, 41);
            final int[] v = new int[1];
            W.recv(v, 1, MPI.INT, peer, 40);
            c.equal(5, v[0], "isSend data");
            W.recv(v, 1, MPI.INT, peer, 42);
            c.equal(6, v[0], "sSend data");
        }
    }

    private static void buffered(final Checks c, final int rank, final int peer) throws MPIException {
        final Intracomm d = pair.dup();
        d.setErrhandler(MPI.ERRORS_RETURN);
        if (rank == 1) {
            c.fails(MPI.ERR_BUFFER, "a large bSend without an attached buffer",
                () -> d.bSend(new int[100_000], 100_000, MPI.INT, peer, 50));
            d.bSend(new int[] {-1, -1, -1}, 3, MPI.INT, peer, 49); // short enough to leave inline: no buffer needed
            MPI.attachBuffer(new byte[4 * (MPI.BSEND_OVERHEAD + 400)]);
            for (int i = 0; i < 4; i++) {
                d.bSend(new int[] {i, i, i}, 3, MPI.INT, peer, 50);
            }
            final byte[] back = MPI.detachBuffer();
            c.equal(4 * (MPI.BSEND_OVERHEAD + 400), back.length, "detach returns the buffer");
            MPI.attachBuffer(new byte[MPI.BSEND_OVERHEAD + 8]);
            c.fails(MPI.ERR_BUFFER, "bSend larger than the attached buffer",
                () -> d.bSend(new int[100], 100, MPI.INT, peer, 51));
            MPI.detachBuffer();
        } else {
            final int[] v = new int[3];
            d.recv(v, 3, MPI.INT, peer, 49);
            c.that(v[0] == -1 && v[2] == -1, "a short buffered message sent without an attached buffer");
            for (int i = 0; i < 4; i++) {
                d.recv(v, 3, MPI.INT, peer, 50);
                c.that(v[0] == i && v[2] == i, "buffered message " + i);
            }
        }
        d.free();
    }

    private static void replace(final Checks c, final int rank, final int peer) throws MPIException {
        final long[] v = {rank, rank + 100L};
        W.sendRecvReplace(v, 2, MPI.LONG, peer, 60, peer, 60);
        c.that(v[0] == peer && v[1] == peer + 100L, "sendRecvReplace swapped the values");
    }

    /** Derived datatypes between the two ranks: sent in place, received into another layout. */
    private static void datatypes(final Checks c, final int rank, final int peer) throws MPIException {
        final Datatype evens = Datatype.createVector(5, 1, 2, MPI.INT);
        evens.commit();
        c.equal(9, evens.getExtent(), "vector extent in ints");
        c.equal(5, evens.getSize(), "vector size in ints");
        final int[] blocks = {2, 1, 3};
        final int[] displs = {0, 5, 9};
        final Datatype idx = Datatype.createIndexed(blocks, displs, MPI.INT);
        idx.commit();
        c.equal(12, idx.getExtent(), "indexed extent");
        final Datatype down = Datatype.createVector(4, 1, -2, MPI.DOUBLE); // negative stride
        down.commit();
        c.equal(-6, down.getLb(), "negative-stride vector lower bound");
        final Datatype resized = Datatype.createResized(MPI.INT, 0, 12); // every third int
        resized.commit();
        c.equal(3, resized.getExtent(), "resized extent in ints");
        final Datatype pairOfVectors = Datatype.createContiguous(2, evens); // nested
        pairOfVectors.commit();
        c.equal(10, pairOfVectors.getSize(), "contiguous of vectors size");
        final Datatype hv = Datatype.createHVector(3, 2, 20, MPI.SHORT);
        hv.commit();
        c.equal(2 * 10 + 2, hv.getExtent(), "hvector extent in shorts");
        final Datatype st = Datatype.createStruct(new int[] {1, 2}, new int[] {0, 8}, new Datatype[] {MPI.INT,
            MPI.DOUBLE});
        st.commit();
        c.equal(24, st.getExtent(), "struct extent in bytes");
        c.equal(20, st.getSize(), "struct size in bytes");
        final Datatype uncommitted = Datatype.createContiguous(2, MPI.INT);
        final Intracomm d = pair.dup();
        d.setErrhandler(MPI.ERRORS_RETURN);
        // an uncommitted type is used as it is, as Open MPI's bindings do
        c.that(uncommitted.getSize() == 2, "an uncommitted type still answers queries");
        if (rank == 1) {
            final int[] a = new int[20];
            for (int i = 0; i < 20; i++) {
                a[i] = i;
            }
            W.send(a, 1, evens, peer, 70);                  // 0 2 4 6 8
            W.send(a, 1, idx, peer, 71);                    // 0 1 5 9 10 11
            W.send(MPI.slice(new double[] {0, 1, 2, 3, 4, 5, 6, 7}, 6), 1, down, peer, 72); // 6 4 2 0
            W.send(a, 4, resized, peer, 73);                // 0 3 6 9
            W.send(a, 1, pairOfVectors, peer, 74);          // 0 2 4 6 8 9 11 13 15 17
            final short[] sh = new short[40];
            for (int i = 0; i < 40; i++) {
                sh[i] = (short) i;
            }
            W.send(sh, 1, hv, peer, 75);                    // 0 1 10 11 20 21
            final ByteBuffer sb = ByteBuffer.allocate(24).order(java.nio.ByteOrder.nativeOrder());
            sb.putInt(0, 7).putDouble(8, 1.5).putDouble(16, -2.5);
            W.send(sb, 1, st, peer, 76);
        } else {
            final int[] got = new int[10];
            W.recv(got, 5, MPI.INT, peer, 70);
            c.that(java.util.Arrays.equals(java.util.Arrays.copyOf(got, 5), new int[] {0, 2, 4, 6, 8}), "vector");
            W.recv(got, 6, MPI.INT, peer, 71);
            c.that(java.util.Arrays.equals(java.util.Arrays.copyOf(got, 6), new int[] {0, 1, 5, 9, 10, 11}), "indexed");
            final double[] dd = new double[4];
            W.recv(dd, 4, MPI.DOUBLE, peer, 72);
            c.that(java.util.Arrays.equals(dd, new double[] {6, 4, 2, 0}), "negative stride from a slice");
            final int[] spread = new int[12];
            final Status s = W.recv(spread, 4, resized, peer, 73); // unpacked with the same stride
            c.that(spread[0] == 0 && spread[3] == 3 && spread[6] == 6 && spread[9] == 9 && spread[1] == 0,
                "resized receive");
            c.equal(4, s.getCount(resized), "count in resized elements");
            W.recv(got, 10, MPI.INT, peer, 74);
            c.that(java.util.Arrays.equals(got, new int[] {0, 2, 4, 6, 8, 9, 11, 13, 15, 17}), "nested vectors");
            final short[] sh = new short[6];
            W.recv(sh, 6, MPI.SHORT, peer, 75);
            c.that(java.util.Arrays.equals(sh, new short[] {0, 1, 10, 11, 20, 21}), "hvector");
            final ByteBuffer rb = MPI.newByteBuffer(24);
            final Status ss = W.recv(rb, 1, st, peer, 76);
            c.that(rb.getInt(0) == 7 && rb.getDouble(8) == 1.5 && rb.getDouble(16) == -2.5, "struct");
            c.equal(1, ss.getCount(st), "struct count");
        }
        d.free();
    }

    /** 8 MiB both ways, heap array and direct buffer. */
    private static void large(final Checks c, final int rank, final int peer) throws MPIException {
        final int n = 1 << 20;
        final double[] a = new double[n];
        final DoubleBuffer b = MPI.newDoubleBuffer(n);
        if (rank == 1) {
            for (int i = 0; i < n; i++) {
                a[i] = i * 0.5;
                b.put(i, -i);
            }
            W.send(a, n, MPI.DOUBLE, peer, 80);
            W.iSend(b, n, MPI.DOUBLE, peer, 81).waitFor();
        } else {
            W.recv(a, n, MPI.DOUBLE, peer, 80);
            W.iRecv(b, n, MPI.DOUBLE, peer, 81).waitFor();
            c.that(a[n - 1] == (n - 1) * 0.5 && a[12345] == 12345 * 0.5, "8 MiB into a heap array");
            c.that(b.get(n - 1) == -(n - 1) && b.get(777) == -777, "8 MiB into a direct buffer");
        }
    }

    /** Persistent requests started many times, and mProbe/mRecv of a message no other receive can take. */
    private static void persistentAndMatched(final Checks c, final int rank, final int peer) throws MPIException {
        final IntBuffer b = MPI.newIntBuffer(4);
        final Prequest p = rank == 1 ? W.sendInit(b, 4, MPI.INT, peer, 90) : W.recvInit(b, 4, MPI.INT, peer, 90);
        for (int round = 0; round < 5; round++) {
            if (rank == 1) {
                b.put(0, round).put(3, -round);
            }
            p.start();
            p.waitFor();
            c.that(!p.isNull(), "a persistent request stays non-null after completion");
            if (rank == 0) {
                c.that(b.get(0) == round && b.get(3) == -round, "persistent receive round " + round);
            }
        }
        p.free();
        c.that(p.isNull(), "a freed persistent request is null");
        if (rank == 1) {
            W.send(new int[] {1, 2, 3, 4, 5, 6}, 6, MPI.INT, peer, 91);
            W.send(new int[] {7, 8, 9, 10}, 4, MPI.INT, peer, 92);
        } else {
            final Message m = new Message();
            final Status s = m.mProbe(MPI.ANY_SOURCE, 91, W);
            c.equal(6, s.getCount(MPI.INT), "mProbe count");
            c.that(W.iProbe(peer, 91) == null, "a matched message is out of the queue");
            final int[] got = new int[s.getCount(MPI.INT)];
            final Status r = m.mRecv(got, got.length, MPI.INT);
            c.that(got[0] == 1 && got[5] == 6 && r.getSource() == peer && r.getTag() == 91, "mRecv");
            c.that(m.isNull(), "a received message is null");
            final Message m2 = new Message();
            Status s2 = null;
            while (s2 == null) {
                s2 = m2.imProbe(peer, 92, W);
            }
            final Datatype second = Datatype.createVector(4, 1, 2, MPI.INT);
            second.commit();
            final IntBuffer spread = MPI.newIntBuffer(8);
            m2.imRecv(spread, 1, second).waitFor();
            c.that(spread.get(0) == 7 && spread.get(2) == 8 && spread.get(6) == 10 && spread.get(1) == 0,
                "imRecv into a vector type");
            final Message none = new Message();
            none.mProbe(MPI.PROC_NULL, 0, W);
            c.that(none.isNoProc(), "mProbe of PROC_NULL");
            c.equal(MPI.PROC_NULL, none.mRecv(new int[1], 1, MPI.INT).getSource(), "mRecv of PROC_NULL");
        }
    }
}
