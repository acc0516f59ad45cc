package mpi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A communicator whose ranks form a Cartesian grid ({@link Intracomm#createCart}): ranks are laid out in
 * row-major order (the last dimension varies fastest); dimensions may wrap around.
 *
 * <pre>{@code
 * int[] dims = new int[2];
 * CartComm.createDims(size, dims);                       // e.g. 4 ranks: {2, 2}
 * CartComm grid = MPI.COMM_WORLD.createCart(dims, new boolean[] {true, false}, false);
 * ShiftParms s = grid.shift(0, 1);                       // neighbours along dimension 0
 * grid.sendRecv(out, n, MPI.DOUBLE, s.getRankDest(), 0, in, n, MPI.DOUBLE, s.getRankSource(), 0);
 * }</pre>
 */
public final class CartComm extends Intracomm {
    private final int[] dims;
    private final boolean[] periods;

    CartComm(final int[] dims, final boolean[] periods) {
        this.dims = dims.clone();
        this.periods = periods.clone();
    }

    /** A copy of this grid with its own message space (collective). */
    @Override
    public CartComm dup() throws MPIException {
        return dupInto(new CartComm(dims, periods));
    }

    /** The same as {@link #dup}; the hints are ignored. */
    @Override
    public CartComm dupWithInfo(final Info info) throws MPIException {
        return dup();
    }

    @Override
    public CartComm clone() {
        try {
            return dup();
        } catch (final MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The grid's dimensions, periods and this rank's coordinates. */
    public CartParms getTopo() throws MPIException {
        checkLive();
        return new CartParms(dims.clone(), periods.clone(), coordsOf(rank));
    }

    /** The rank at {@code coords} (periodic dimensions wrap; an open one must be in range). */
    public int getRank(final int[] coords) throws MPIException {
        checkLive();
        try {
            if (coords == null || coords.length != dims.length) {
                throw new MPIException(MPI.ERR_ARG, "a grid of " + dims.length + " dimensions needs as many "
                    + "coordinates");
            }
            int r = 0;
            for (int d = 0; d < dims.length; d++) {
                int c = coords[d];
                if (periods[d]) {
                    c = Math.floorMod(c, dims[d]);
                } else if (c < 0 || c >= dims[d]) {
                    throw new MPIException(MPI.ERR_ARG, "coordinate " + c + " outside [0, " + dims[d] + ") in the "
                        + "non-periodic dimension " + d);
                }
                r = r * dims[d] + c;
            }
            return r;
        } catch (final MPIException e) {
            throw fail(e);
        }
    }

    /** The coordinates of {@code rank}. */
    public int[] getCoords(final int rank) throws MPIException {
        checkLive();
        if (rank < 0 || rank >= size) {
            throw fail(new MPIException(MPI.ERR_RANK, "rank " + rank + " outside [0, " + size + ")"));
        }
        return coordsOf(rank);
    }

    private int[] coordsOf(final int r) {
        final int[] c = new int[dims.length];
        int rest = r;
        for (int d = dims.length - 1; d >= 0; d--) {
            c[d] = rest % dims[d];
            rest /= dims[d];
        }
        return c;
    }

    /**
     * The ranks {@code disp} steps before and after this one along {@code direction}: receive from the source,
     * send to the destination ({@link MPI#PROC_NULL} past an open edge).
     */
    public ShiftParms shift(final int direction, final int disp) throws MPIException {
        checkLive();
        if (direction < 0 || direction >= dims.length) {
            throw fail(new MPIException(MPI.ERR_DIMS, "direction " + direction + " outside [0, " + dims.length + ")"));
        }
        final int[] c = coordsOf(rank);
        return new ShiftParms(neighbour(c, direction, -disp), neighbour(c, direction, disp));
    }

    private int neighbour(final int[] coords, final int dim, final int step) {
        final int[] c = coords.clone();
        c[dim] += step;
        if (!periods[dim] && (c[dim] < 0 || c[dim] >= dims[dim])) {
            return MPI.PROC_NULL;
        }
        c[dim] = Math.floorMod(c[dim], dims[dim]);
        int r = 0;
        for (int d = 0; d < dims.length; d++) {
            r = r * dims[d] + c[d];
        }
        return r;
    }

    /**
     * The sub-grids keeping the dimensions marked in {@code remainDims} (collective): the ranks that agree on
     * every other coordinate form one.
     */
    public CartComm sub(final boolean[] remainDims) throws MPIException {
        checkLive();
        try {
            if (remainDims == null || remainDims.length != dims.length) {
                throw new MPIException(MPI.ERR_ARG, "remainDims needs one entry per dimension (" + dims.length + ")");
            }
            final int[] c = coordsOf(rank);
            int colour = 0;
            final List<Integer> kept = new ArrayList<>();
            for (int d = 0; d < dims.length; d++) {
                if (remainDims[d]) {
                    kept.add(d);
                } else {
                    colour = colour * dims[d] + c[d];
                }
            }
            final int[] subDims = new int[kept.size()];
            final boolean[] subPeriods = new boolean[kept.size()];
            for (int i = 0; i < subDims.length; i++) {
                subDims[i] = dims[kept.get(i)];
                subPeriods[i] = periods[kept.get(i)];
            }
            return adopt(split(colour, rank), new CartComm(subDims, subPeriods));
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** The rank this process would have in a grid of {@code dims}, or {@link MPI#UNDEFINED} if outside it. */
    public int map(final int[] dims, final boolean[] periods) throws MPIException {
        checkLive();
        return rank < product(dims) ? rank : MPI.UNDEFINED;
    }

    /**
     * Fills the zero entries of {@code dims} so that the product of all entries is {@code nnodes}, as balanced
     * as possible and in non-increasing order (MPI_DIMS_CREATE).
     */
    public static void createDims(final int nnodes, final int[] dims) throws MPIException {
        MPI.check();
        int fixed = 1;
        int free = 0;
        for (final int d : dims) {
            if (d < 0) {
                throw new MPIException(MPI.ERR_DIMS, "negative dimension " + d);
            }
            if (d == 0) {
                free++;
            } else {
                fixed *= d;
            }
        }
        if (nnodes < 1 || nnodes % fixed != 0) {
            throw new MPIException(MPI.ERR_DIMS, nnodes + " nodes cannot fill dimensions " + Arrays.toString(dims));
        }
        if (free == 0) {
            if (fixed != nnodes) {
                throw new MPIException(MPI.ERR_DIMS, "dimensions " + Arrays.toString(dims) + " do not hold " + nnodes
                    + " nodes");
            }
            return;
        }
        final int[] made = new int[free];
        Arrays.fill(made, 1);
        int rest = nnodes / fixed;
        final List<Integer> primes = new ArrayList<>();
        for (int p = 2; rest > 1; p++) {
            while (rest % p == 0) {
                primes.add(p);
                rest /= p;
            }
            if ((long) p * p > rest && rest > 1) {
                primes.add(rest);
                rest = 1;
            }
        }
        primes.sort((a, b) -> b - a);
        for (final int p : primes) {
            int smallest = 0;
            for (int i = 1; i < free; i++) {
                if (made[i] < made[smallest]) {
                    smallest = i;
                }
            }
            made[smallest] *= p;
        }
        Arrays.sort(made);
        int k = free - 1;
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] == 0) {
                dims[i] = made[k--];
            }
        }
    }

    static int product(final int[] dims) {
        int p = 1;
        for (final int d : dims) {
            p *= d;
        }
        return p;
    }

    /** Gives {@code target} the group and message space of {@code made} (a null communicator stays null). */
    static CartComm adopt(final Intracomm made, final CartComm target) throws MPIException {
        if (!made.isNull()) {
            target.setup(made.session, made.group, made.cid, "");
            target.setErrhandler(made.getErrhandler());
        }
        return target;
    }

    @Override
    int topology() {
        return MPI.CART;
    }

    /** Per dimension, the neighbour at -1 then at +1; the message sent towards +1 arrives as the one from -1. */
    @Override
    Neighbours neighbours() {
        final int n = 2 * dims.length;
        final int[] ranks = new int[n];
        final int[] inSub = new int[n];
        final int[] outSub = new int[n];
        final int[] c = coordsOf(rank);
        for (int d = 0; d < dims.length; d++) {
            ranks[2 * d] = neighbour(c, d, -1);
            ranks[2 * d + 1] = neighbour(c, d, 1);
            outSub[2 * d] = 2 * d;
            outSub[2 * d + 1] = 2 * d + 1;
            inSub[2 * d] = 2 * d + 1;
            inSub[2 * d + 1] = 2 * d;
        }
        return new Neighbours(ranks, inSub, ranks.clone(), outSub);
    }
}
