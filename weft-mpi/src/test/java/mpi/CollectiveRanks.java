package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.util.Arrays;

/**
 * Rank program: every collective with several operations, types, roots and in-place forms, and the
 * communicator calls (split, dup, create, compare, groups), at any size. Prints {@code OK coll ...} when every
 * check held.
 */
public final class CollectiveRanks {
    private static final Datatype[] TYPES = {MPI.BYTE, MPI.SHORT, MPI.CHAR, MPI.INT, MPI.LONG, MPI.FLOAT, MPI.DOUBLE};
    private static final Op[] OPS = {MPI.SUM, MPI.MAX, MPI.MIN, MPI.PROD};

    private CollectiveRanks() {
    }

    public static void main(final String[] args) throws MPIException {
        MPI.Init(args);
        final Intracomm w = MPI.COMM_WORLD;
        final int rank = w.getRank();
        final Checks c = new Checks("coll", rank);
        c.configuredPath();
        w.barrier();
        broadcasts(c, w);
        reductionsByType(c, w, 5);
        reductionsByType(c, w, 1000);
        pairsAndLogic(c, w);
        structs(c, w);
        userOps(c, w);
        gathersAndScatters(c, w);
        allToAll(c, w);
        reduceScatter(c, w);
        CommunicatorChecks.communicators(c, w);
        nonBlocking(c, w);
        CommunicatorChecks.topologies(c, w);
        CommunicatorChecks.intercommunicators(c, w);
        CommunicatorChecks.graphs(c, w);
        w.barrier();
        c.done();
        MPI.Finalize();
    }

    private static void broadcasts(final Checks c, final Intracomm w) throws MPIException {
        final int n = w.getSize();
        for (int root = 0; root < n; root++) {
            final int[] v = new int[10];
            if (w.getRank() == root) {
                Arrays.fill(v, root + 7);
            }
            w.bcast(v, 10, MPI.INT, root);
            c.that(v[0] == root + 7 && v[9] == root + 7, "bcast from " + root);
        }
        final DoubleBuffer big = MPI.newDoubleBuffer(300_000);
        if (w.getRank() == n - 1) {
            for (int i = 0; i < 300_000; i++) {
                big.put(i, i);
            }
        }
        w.bcast(big, 300_000, MPI.DOUBLE, n - 1);
        c.that(big.get(299_999) == 299_999 && big.get(4242) == 4242, "bcast of 2.4 MB");
        final Datatype every3 = Datatype.createVector(4, 1, 3, MPI.INT);
        every3.commit();
        final int[] v = new int[10];
        if (w.getRank() == 0) {
            for (int i = 0; i < 10; i++) {
                v[i] = 100 + i;
            }
        }
        w.bcast(v, 1, every3, 0);
        c.that(v[0] == 100 && v[3] == 103 && v[9] == 109 && (w.getRank() == 0 || v[1] == 0), "bcast of a vector");
        final boolean[] flags = new boolean[3];
        if (w.getRank() == 0) {
            flags[1] = true;
        }
        w.bcast(flags, 3, MPI.BOOLEAN, 0);
        c.that(!flags[0] && flags[1] && !flags[2], "bcast of booleans");
    }

    /** Input element i of rank r, in 1..5. */
    private static long input(final int r, final int i) {
        return ((long) (r + 1) * (i + 3)) % 5 + 1;
    }

    private static Object array(final Datatype t, final int n) {
        if (t == MPI.BYTE) {
            return new byte[n];
        } else if (t == MPI.SHORT) {
            return new short[n];
        } else if (t == MPI.CHAR) {
            return new char[n];
        } else if (t == MPI.INT) {
            return new int[n];
        } else if (t == MPI.LONG) {
            return new long[n];
        } else if (t == MPI.FLOAT) {
            return new float[n];
        }
        return new double[n];
    }

    private static void set(final Object a, final int i, final long v) {
        switch (a) {
            case byte[] x -> x[i] = (byte) v;
            case short[] x -> x[i] = (short) v;
            case char[] x -> x[i] = (char) v;
            case int[] x -> x[i] = (int) v;
            case long[] x -> x[i] = v;
            case float[] x -> x[i] = v;
            case double[] x -> x[i] = v;
            default -> throw new IllegalArgumentException();
        }
    }

    private static double get(final Object a, final int i) {
        return switch (a) {
            case byte[] x -> x[i];
            case short[] x -> x[i];
            case char[] x -> x[i];
            case int[] x -> x[i];
            case long[] x -> x[i];
            case float[] x -> x[i];
            case double[] x -> x[i];
            default -> throw new IllegalArgumentException();
        };
    }

    /** The reduction over ranks {@code [0, upto)} of element i, wrapped to {@code t} as the library computes it. */
    private static double expected(final Datatype t, final Op op, final int upto, final int i) {
        long acc = input(0, i);
        for (int r = 1; r < upto; r++) {
            final long v = input(r, i);
            acc = op == MPI.SUM ? acc + v : op == MPI.PROD ? acc * v : op == MPI.MAX ? Math.max(acc, v)
                : Math.min(acc, v);
        }
        final Object one = array(t, 1);
        set(one, 0, acc);
        return t == MPI.FLOAT || t == MPI.DOUBLE ? (double) acc : get(one, 0);
    }

    private static void reductionsByType(final Checks c, final Intracomm w, final int n) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        for (final Datatype t : TYPES) {
            for (final Op op : OPS) {
                final String what = t.getName() + " " + MPI.opName(op.code) + " x" + n;
                final Object in = array(t, n);
                for (int i = 0; i < n; i++) {
                    set(in, i, input(rank, i));
                }
                final Object out = array(t, n);
                w.allReduce(in, out, n, t, op);
                final Object inPlace = array(t, n);
                for (int i = 0; i < n; i++) {
                    set(inPlace, i, input(rank, i));
                }
                w.allReduce(inPlace, n, t, op);
                final Object atRoot = array(t, n);
                w.reduce(in, atRoot, n, t, op, size - 1);
                final Object scanned = array(t, n);
                w.scan(in, scanned, n, t, op);
                final Object exScanned = array(t, n);
                w.exScan(in, exScanned, n, t, op);
                for (int i = 0; i < n; i += Math.max(1, n / 7)) {
                    final double all = expected(t, op, size, i);
                    c.equal(all, get(out, i), "allReduce " + what + " [" + i + "]");
                    c.equal(all, get(inPlace, i), "in-place allReduce " + what + " [" + i + "]");
                    if (rank == size - 1) {
                        c.equal(all, get(atRoot, i), "reduce " + what + " [" + i + "]");
                    }
                    c.equal(expected(t, op, rank + 1, i), get(scanned, i), "scan " + what + " [" + i + "]");
                    if (rank > 0) {
                        c.equal(expected(t, op, rank, i), get(exScanned, i), "exScan " + what + " [" + i + "]");
                    }
                }
            }
        }
        final Intracomm d = w.dup();
        d.setErrhandler(MPI.ERRORS_RETURN);
        c.fails(MPI.ERR_OP, "SUM on booleans", () -> d.allReduce(new boolean[1], 1, MPI.BOOLEAN, MPI.SUM));
        d.free();
    }

    private static void pairsAndLogic(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        // MINLOC / MAXLOC on (int value, int index) pairs: values repeat so ties take the smaller index
        final ByteBuffer in = MPI.newByteBuffer(16);
        in.putInt(0, rank % 2).putInt(4, rank).putInt(8, -(rank / 2)).putInt(12, rank);
        final ByteBuffer min = MPI.newByteBuffer(16);
        final ByteBuffer max = MPI.newByteBuffer(16);
        w.allReduce(in, min, 2, MPI.INT2, MPI.MINLOC);
        w.allReduce(in, max, 2, MPI.INT2, MPI.MAXLOC);
        c.that(min.getInt(0) == 0 && min.getInt(4) == 0, "MINLOC tie takes the smallest index");
        c.that(max.getInt(0) == (size > 1 ? 1 : 0) && max.getInt(4) == (size > 1 ? 1 : 0), "MAXLOC tie");
        c.that(min.getInt(8) == -((size - 1) / 2) && min.getInt(12) == ((size - 1) / 2) * 2, "MINLOC value");
        final ByteBuffer dIn = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
        dIn.putDouble(0, 10.0 - rank).putInt(8, rank);
        final ByteBuffer dOut = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
        w.allReduce(dIn, dOut, 1, MPI.DOUBLE_INT, MPI.MINLOC);
        c.that(dOut.getDouble(0) == 10.0 - (size - 1) && dOut.getInt(8) == size - 1, "DOUBLE_INT MINLOC");
        // logical ops on booleans, bitwise on ints
        final boolean[] b = {rank % 2 == 0, true, rank == 0};
        final boolean[] and = new boolean[3];
        final boolean[] or = new boolean[3];
        final boolean[] xor = new boolean[3];
        w.allReduce(b, and, 3, MPI.BOOLEAN, MPI.LAND);
        w.allReduce(b, or, 3, MPI.BOOLEAN, MPI.LOR);
        w.allReduce(b, xor, 3, MPI.BOOLEAN, MPI.LXOR);
        c.that(and[0] == (size == 1) && and[1] && and[2] == (size == 1), "LAND");
        c.that(or[0] && or[1] && or[2], "LOR");
        c.that(xor[0] == ((size + 1) / 2 % 2 == 1) && xor[1] == (size % 2 == 1) && xor[2], "LXOR");
        final int[] bits = {1 << rank, ~(1 << rank), rank};
        final int[] band = new int[3];
        final int[] bor = new int[3];
        final int[] bxor = new int[3];
        w.allReduce(bits, band, 3, MPI.INT, MPI.BAND);
        w.allReduce(bits, bor, 3, MPI.INT, MPI.BOR);
        w.allReduce(bits, bxor, 3, MPI.INT, MPI.BXOR);
        int x = 0;
        for (int r = 0; r < size; r++) {
            x ^= r;
        }
        c.that(band[0] == (size == 1 ? 1 : 0) && bor[0] == (1 << size) - 1 && bxor[2] == x, "BAND BOR BXOR");
        // complex sum
        final float[] z = {rank, -rank};
        final float[] zs = new float[2];
        w.allReduce(z, zs, 1, MPI.FLOAT_COMPLEX, MPI.SUM);
        c.that(zs[0] == size * (size - 1) / 2f && zs[1] == -size * (size - 1) / 2f, "complex SUM");
        final double[] local = {1, 2};
        final double[] acc = {10, 20};
        Comm.reduceLocal(local, acc, 2, MPI.DOUBLE, MPI.SUM);
        c.that(acc[0] == 11 && acc[1] == 22, "reduceLocal");
    }

    /** A particle: a position, an id and a tag of three chars, padded as C would. */
    static final class Particle extends Struct {
        final int x = addDouble();
        final int id = addInt();
        final int tag = addChar(3);

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
            double x() {
                return getDouble(x);
            }

            int id() {
                return getInt(id);
            }

            char tag(final int i) {
                return getChar(tag, i);
            }

            void set(final double px, final int pid, final String t) {
                putDouble(x, px);
                putInt(id, pid);
                for (int i = 0; i < 3; i++) {
                    putChar(tag, i, t.charAt(i));
                }
            }
        }
    }

    /** The Struct helpers: value-index pairs for MINLOC/MAXLOC, and a struct of the program's own. */
    private static void structs(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        c.equal(16, MPI.longInt.getExtent(), "longInt extent");
        c.equal(8, MPI.shortInt.getExtent(), "shortInt extent");
        c.equal(16, MPI.LONG_INT.getExtent(), "LONG_INT extent (bytes: base type BYTE)");
        final java.nio.ByteBuffer in = MPI.newByteBuffer(MPI.longInt.getExtent() * 2);
        final LongInt.Data a = MPI.longInt.getData(in, 0);
        a.putValue(1L << 40 | rank);
        a.putIndex(rank);
        final LongInt.Data b = MPI.longInt.getData(in, 1);
        b.putValue(-rank);
        b.putIndex(rank * 10);
        final java.nio.ByteBuffer out = MPI.newByteBuffer(MPI.longInt.getExtent() * 2);
        w.allReduce(in, out, 2, MPI.LONG_INT, MPI.MAXLOC);
        final LongInt.Data r0 = MPI.longInt.getData(out, 0);
        final LongInt.Data r1 = MPI.longInt.getData(out, 1);
        c.that(r0.getValue() == (1L << 40 | (size - 1)) && r0.getIndex() == size - 1, "LONG_INT MAXLOC on large longs");
        c.that(r1.getValue() == 0 && r1.getIndex() == 0, "LONG_INT MAXLOC");
        final java.nio.ByteBuffer si = MPI.newByteBuffer(MPI.shortInt.getExtent());
        final ShortInt.Data sd = MPI.shortInt.getData(si);
        sd.putValue((short) (100 - rank));
        sd.putIndex(rank);
        w.allReduce(si, 1, MPI.SHORT_INT, MPI.MINLOC);
        c.that(sd.getValue() == 100 - (size - 1) && sd.getIndex() == size - 1, "SHORT_INT MINLOC in place");
        final Particle p = new Particle();
        c.equal(24, p.getExtent(), "a struct's extent is padded to its strictest member");
        final java.nio.ByteBuffer mine = MPI.newByteBuffer(p.getExtent());
        final Particle.Data d = p.getData(mine);
        d.set(rank + 0.5, rank, "p" + (char) ('a' + rank) + "!");
        final java.nio.ByteBuffer all = MPI.newByteBuffer(p.getExtent() * size);
        w.allGather(mine, 1, p.getType(), all, 1, p.getType());
        for (int r = 0; r < size; r++) {
            final Particle.Data e = p.getData(all, r);
            c.that(e.x() == r + 0.5 && e.id() == r && e.tag(1) == 'a' + r && e.tag(2) == '!', "struct element " + r);
        }
    }




    /**
     * A non-commutative user operation on pairs of longs (a, b), the affine maps x -> a x + b: {@code in op inOut}
     * is the map that applies {@code in} first, then {@code inOut}.
     */
    static Op affineCompose() throws MPIException {
        return new Op(new UserFunction() {
            @Override
            public void call(final ByteBuffer in, final ByteBuffer inOut, final int count, final Datatype type) {
                for (int i = 0; i < count; i++) {
                    final long a0 = in.getLong(16 * i);
                    final long b0 = in.getLong(16 * i + 8);
                    final long a1 = inOut.getLong(16 * i);
                    final long b1 = inOut.getLong(16 * i + 8);
                    inOut.putLong(16 * i, a1 * a0);          // first x0, then x1
                    inOut.putLong(16 * i + 8, a1 * b0 + b1);
                }
            }
        }, false);
    }

    /** A non-commutative user operation: composition of affine maps x -> a x + b, in rank order. */
    private static void userOps(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        final Datatype affine = Datatype.createContiguous(2, MPI.LONG);
        affine.commit();
        final Op compose = affineCompose();
        c.that(!compose.isCommutative(), "user op commutativity flag");
        final int n = 3;
        final long[] mine = new long[2 * n];
        for (int i = 0; i < n; i++) {
            mine[2 * i] = rank + 2 + i;
            mine[2 * i + 1] = rank + 1;
        }
        final long[] all = new long[2 * n];
        w.allReduce(mine, all, n, affine, compose);
        final long[] atRoot = new long[2 * n];
        w.reduce(mine, atRoot, n, affine, compose, size / 2);
        final long[] prefix = new long[2 * n];
        w.scan(mine, prefix, n, affine, compose);
        for (int i = 0; i < n; i++) {
            long a = 1;
            long b = 0;
            for (int r = 0; r < size; r++) {
                final long ar = r + 2 + i;
                final long br = r + 1;
                b = ar * b + br;
                a = ar * a;
                if (r == rank) {
                    c.that(prefix[2 * i] == a && prefix[2 * i + 1] == b, "non-commutative scan [" + i + "]");
                }
            }
            c.that(all[2 * i] == a && all[2 * i + 1] == b, "non-commutative allReduce [" + i + "]: got (" + all[2 * i]
                + ", " + all[2 * i + 1] + ") want (" + a + ", " + b + ")");
            if (rank == size / 2) {
                c.that(atRoot[2 * i] == a && atRoot[2 * i + 1] == b, "non-commutative reduce [" + i + "]");
            }
        }
        // the array form of a user function (the default ByteBuffer form converts)
        final Op maxByArrays = new Op(new UserFunction() {
            @Override
            public void call(final Object in, final Object inOut, final int count, final Datatype type) {
                final int[] a = (int[]) in;
                final int[] b = (int[]) inOut;
                for (int i = 0; i < count; i++) {
                    b[i] = Math.max(a[i], b[i]);
                }
            }
        }, true);
        final int[] v = {rank, -rank};
        w.allReduce(v, 2, MPI.INT, maxByArrays);
        c.that(v[0] == size - 1 && v[1] == 0, "user op through arrays");
    }

    private static void gathersAndScatters(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        final int[] mine = {rank * 100, rank * 100 + 1, rank * 100 + 2};
        final int[] all = new int[3 * size];
        w.gather(mine, 3, MPI.INT, all, 3, MPI.INT, 0);
        if (rank == 0) {
            c.that(all[3 * (size - 1) + 2] == (size - 1) * 100 + 2, "gather");
        }
        final int root = size - 1;
        final int[] inPlace = new int[3 * size];
        final int[] gbuf = rank == root ? inPlace : mine;
        if (rank == root) {
            System.arraycopy(mine, 0, inPlace, 3 * root, 3);
        }
        w.gather(gbuf, 3, MPI.INT, root);
        if (rank == root) {
            for (int r = 0; r < size; r++) {
                c.equal(r * 100 + 1, inPlace[3 * r + 1], "in-place gather block " + r);
            }
        }
        // gatherv: rank r sends r + 1 ints, placed in reverse rank order
        final int[] counts = new int[size];
        final int[] displs = new int[size];
        int at = 0;
        for (int r = size - 1; r >= 0; r--) {
            counts[r] = r + 1;
            displs[r] = at;
            at += r + 1;
        }
        final int[] vsend = new int[rank + 1];
        Arrays.fill(vsend, rank);
        final int[] vrecv = new int[at];
        if (rank == 0) {
            w.gatherv(vsend, rank + 1, MPI.INT, vrecv, counts, displs, MPI.INT, 0);
            for (int r = 0; r < size; r++) {
                c.that(vrecv[displs[r]] == r && vrecv[displs[r] + r] == r, "gatherv block " + r);
            }
        } else {
            w.gatherv(vsend, rank + 1, MPI.INT, 0);
        }
        // scatter from root 1 % size; scatterv back out of vrecv
        final int sroot = 1 % size;
        final int[] source = new int[2 * size];
        for (int i = 0; i < source.length; i++) {
            source[i] = 1000 + i;
        }
        final int[] got = new int[2];
        w.scatter(source, 2, MPI.INT, got, 2, MPI.INT, sroot);
        c.that(got[0] == 1000 + 2 * rank && got[1] == 1001 + 2 * rank, "scatter");
        final int[] inPlaceScatter = rank == sroot ? source.clone() : new int[2];
        w.scatter(inPlaceScatter, 2, MPI.INT, sroot);
        c.that(rank == sroot || inPlaceScatter[1] == 1001 + 2 * rank, "in-place scatter");
        final int[] vgot = new int[rank + 1];
        if (rank == 0) {
            w.scatterv(vrecv, counts, displs, MPI.INT, vgot, rank + 1, MPI.INT, 0);
        } else {
            w.scatterv(vgot, rank + 1, MPI.INT, 0);
        }
        c.that(vgot[0] == rank && vgot[rank] == rank, "scatterv");
        // allgather (plain, in place, v)
        final int[] ag = new int[2 * size];
        w.allGather(new int[] {rank, -rank}, 2, MPI.INT, ag, 2, MPI.INT);
        final int[] agIn = new int[2 * size];
        agIn[2 * rank] = rank;
        agIn[2 * rank + 1] = -rank;
        w.allGather(agIn, 2, MPI.INT);
        for (int r = 0; r < size; r++) {
            c.that(ag[2 * r] == r && ag[2 * r + 1] == -r && agIn[2 * r + 1] == -r, "allGather block " + r);
        }
        final int[] agv = new int[at];
        w.allGatherv(vsend, rank + 1, MPI.INT, agv, counts, displs, MPI.INT);
        for (int r = 0; r < size; r++) {
            c.that(agv[displs[r]] == r && agv[displs[r] + r] == r, "allGatherv block " + r);
        }
        // gather of a derived type into plain ints: the vector's elements arrive packed
        final Datatype pairs = Datatype.createVector(2, 1, 2, MPI.INT);
        pairs.commit();
        final int[] src = {rank, 0, rank + 50, 0};
        final int[] packedAll = new int[2 * size];
        w.allGather(src, 1, pairs, packedAll, 2, MPI.INT);
        c.that(packedAll[2 * (size - 1)] == size - 1 && packedAll[2 * (size - 1) + 1] == size + 49,
            "allGather of a vector type into ints");
    }

    private static void allToAll(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        final long[] out = new long[2 * size];
        for (int j = 0; j < size; j++) {
            out[2 * j] = rank * 1000L + j;
            out[2 * j + 1] = -(rank * 1000L + j);
        }
        final long[] in = new long[2 * size];
        w.allToAll(out, 2, MPI.LONG, in, 2, MPI.LONG);
        for (int j = 0; j < size; j++) {
            c.that(in[2 * j] == j * 1000L + rank && in[2 * j + 1] == -(j * 1000L + rank), "allToAll from " + j);
        }
        // allToAllv: rank i sends i + j + 1 ints to rank j
        final int[] sc = new int[size];
        final int[] sd = new int[size];
        final int[] rc = new int[size];
        final int[] rd = new int[size];
        int sTotal = 0;
        int rTotal = 0;
        for (int j = 0; j < size; j++) {
            sc[j] = rank + j + 1;
            sd[j] = sTotal;
            sTotal += sc[j];
            rc[j] = j + rank + 1;
            rd[j] = rTotal;
            rTotal += rc[j];
        }
        final int[] sv = new int[sTotal];
        for (int j = 0; j < size; j++) {
            Arrays.fill(sv, sd[j], sd[j] + sc[j], rank * 10 + j);
        }
        final int[] rv = new int[rTotal];
        w.allToAllv(sv, sc, sd, MPI.INT, rv, rc, rd, MPI.INT);
        for (int j = 0; j < size; j++) {
            c.that(rv[rd[j]] == j * 10 + rank && rv[rd[j] + rc[j] - 1] == j * 10 + rank, "allToAllv from " + j);
        }
    }

    private static void reduceScatter(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        final int[] counts = new int[size];
        int total = 0;
        for (int i = 0; i < size; i++) {
            counts[i] = i + 1;
            total += i + 1;
        }
        final int[] in = new int[total];
        for (int i = 0; i < total; i++) {
            in[i] = i + rank;
        }
        final int[] out = new int[rank + 1];
        w.reduceScatter(in, out, counts, MPI.INT, MPI.SUM);
        final int first = rank * (rank + 1) / 2;
        for (int k = 0; k <= rank; k++) {
            c.equal((long) size * (first + k) + size * (size - 1) / 2, out[k], "reduceScatter [" + k + "]");
        }
        final double[] blk = new double[2 * size];
        for (int i = 0; i < blk.length; i++) {
            blk[i] = rank;
        }
        w.reduceScatterBlock(blk, 2, MPI.DOUBLE, MPI.MAX);
        c.that(blk[0] == size - 1 && blk[1] == size - 1, "in-place reduceScatterBlock");
    }



    /** Several non-blocking collectives in flight at once, finished in another order than started. */
    private static void nonBlocking(final Checks c, final Intracomm w) throws MPIException {
        final int rank = w.getRank();
        final int size = w.getSize();
        final java.nio.IntBuffer sum = MPI.newIntBuffer(2);
        sum.put(0, rank).put(1, 1);
        final java.nio.IntBuffer sumOut = MPI.newIntBuffer(2);
        final java.nio.LongBuffer bc = MPI.newLongBuffer(3);
        if (rank == size - 1) {
            bc.put(0, 5).put(1, 6).put(2, 7);
        }
        final java.nio.IntBuffer mine = MPI.newIntBuffer(1);
        mine.put(0, rank * 3);
        final java.nio.IntBuffer all = MPI.newIntBuffer(size);
        final java.nio.DoubleBuffer scanIn = MPI.newDoubleBuffer(1);
        scanIn.put(0, rank + 1);
        final java.nio.DoubleBuffer scanOut = MPI.newDoubleBuffer(1);
        final java.nio.IntBuffer a2aIn = MPI.newIntBuffer(size);
        final java.nio.IntBuffer a2aOut = MPI.newIntBuffer(size);
        for (int j = 0; j < size; j++) {
            a2aIn.put(j, rank * 100 + j);
        }
        final java.nio.IntBuffer gathered = MPI.newIntBuffer(size);
        final Request[] rs = {
            w.iBarrier(),
            w.iAllReduce(sum, sumOut, 2, MPI.INT, MPI.SUM),
            w.iBcast(bc, 3, MPI.LONG, size - 1),
            w.iAllGather(mine, 1, MPI.INT, all, 1, MPI.INT),
            w.iScan(scanIn, scanOut, 1, MPI.DOUBLE, MPI.SUM),
            w.iAllToAll(a2aIn, 1, MPI.INT, a2aOut, 1, MPI.INT),
            w.iGather(mine, 1, MPI.INT, gathered, 1, MPI.INT, 0),
        };
        // point-to-point traffic in between must not disturb them
        final int[] token = {rank};
        w.sendRecv(new int[] {rank}, 1, MPI.INT, (rank + 1) % size, 0, token, 1, MPI.INT, (rank - 1 + size) % size, 0);
        for (int i = rs.length - 1; i >= 0; i--) {
            rs[i].waitFor();
        }
        c.that(sumOut.get(0) == size * (size - 1) / 2 && sumOut.get(1) == size, "iAllReduce");
        c.that(bc.get(0) == 5 && bc.get(2) == 7, "iBcast");
        for (int r = 0; r < size; r++) {
            c.equal(r * 3, all.get(r), "iAllGather [" + r + "]");
            c.equal(r * 100 + rank, a2aOut.get(r), "iAllToAll [" + r + "]");
            if (rank == 0) {
                c.equal(r * 3, gathered.get(r), "iGather [" + r + "]");
            }
        }
        c.equal((rank + 1) * (rank + 2) / 2.0, scanOut.get(0), "iScan");
        c.equal((rank - 1 + size) % size, token[0], "point to point between non-blocking collectives");
        // a test loop also finishes them
        final java.nio.IntBuffer m = MPI.newIntBuffer(1);
        m.put(0, rank);
        final Request r = w.iAllReduce(m, 1, MPI.INT, MPI.MAX);
        while (!r.test()) {
            Thread.onSpinWait();
        }
        c.equal(size - 1, m.get(0), "iAllReduce in place, finished by test()");
        boolean refused = false;
        try {
            w.iBcast(java.nio.IntBuffer.allocate(1), 1, MPI.INT, 0);
        } catch (final IllegalArgumentException e) {
            refused = true;
        }
        c.that(refused, "a non-blocking collective refuses a heap buffer");
    }
}
