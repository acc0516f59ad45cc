package mpi;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * An ordered set of processes (MPI_Group): the job ranks of its members, in group-rank order. Groups are
 * values: the set operations build new ones and nothing talks to other processes.
 */
public final class Group implements Freeable {
    /** Job ranks by group rank. */
    final int[] members;
    private final int rank;

    Group(final int[] members) {
        this.members = members;
        final int me = MPI.jobRank();
        int r = MPI.UNDEFINED;
        for (int i = 0; i < members.length; i++) {
            if (members[i] == me) {
                r = i;
                break;
            }
        }
        this.rank = r;
    }

    /** The number of processes in the group. */
    public int getSize() throws MPIException {
        MPI.check();
        return members.length;
    }

    /** This process's rank in the group, or {@link MPI#UNDEFINED} if it is not a member. */
    public int getRank() throws MPIException {
        MPI.check();
        return rank;
    }

    private boolean freed;

    /** Releases the group: it becomes null (MPI_GROUP_NULL). */
    public void free() throws MPIException {
        MPI.check();
        freed = true;
    }

    /** True once freed (MPI_GROUP_NULL). */
    public boolean isNull() {
        return freed;
    }

    /** The group of the members whose ranks are listed, in that order. */
    public Group incl(final int[] ranks) throws MPIException {
        MPI.check();
        checkDistinct(ranks);
        final int[] m = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            m[i] = members[ranks[i]];
        }
        return new Group(m);
    }

    /** The group without the listed members, in this group's order. */
    public Group excl(final int[] ranks) throws MPIException {
        MPI.check();
        checkDistinct(ranks);
        final boolean[] out = new boolean[members.length];
        for (final int r : ranks) {
            out[r] = true;
        }
        final int[] m = new int[members.length - ranks.length];
        int n = 0;
        for (int i = 0; i < members.length; i++) {
            if (!out[i]) {
                m[n++] = members[i];
            }
        }
        return new Group(m);
    }

    /** {@link #incl} of the ranks of the triplets {@code {first, last, stride}}. */
    public Group rangeIncl(final int[][] ranges) throws MPIException {
        return incl(expand(ranges));
    }

    /** {@link #excl} of the ranks of the triplets {@code {first, last, stride}}. */
    public Group rangeExcl(final int[][] ranges) throws MPIException {
        return excl(expand(ranges));
    }

    /** For each rank of {@code group1} listed, its rank in {@code group2} or {@link MPI#UNDEFINED}. */
    public static int[] translateRanks(final Group group1, final int[] ranks1, final Group group2)
        throws MPIException {
        MPI.check();
        final int[] out = new int[ranks1.length];
        for (int i = 0; i < ranks1.length; i++) {
            if (ranks1[i] == MPI.PROC_NULL) {
                out[i] = MPI.PROC_NULL;
                continue;
            }
            group1.checkRank(ranks1[i]);
            out[i] = group2.indexOf(group1.members[ranks1[i]]);
        }
        return out;
    }

    /** {@link MPI#IDENT} (same members, same order), {@link MPI#SIMILAR} (same members) or {@link MPI#UNEQUAL}. */
    public static int compare(final Group group1, final Group group2) throws MPIException {
        MPI.check();
        if (Arrays.equals(group1.members, group2.members)) {
            return MPI.IDENT;
        }
        final int[] a = group1.members.clone();
        final int[] b = group2.members.clone();
        Arrays.sort(a);
        Arrays.sort(b);
        return Arrays.equals(a, b) ? MPI.SIMILAR : MPI.UNEQUAL;
    }

    /** The members of {@code group1}, then those of {@code group2} not in {@code group1}. */
    public static Group union(final Group group1, final Group group2) throws MPIException {
        MPI.check();
        final Set<Integer> s = new LinkedHashSet<>();
        for (final int m : group1.members) {
            s.add(m);
        }
        for (final int m : group2.members) {
            s.add(m);
        }
        return new Group(s.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The members of {@code group1} that are also in {@code group2}, in {@code group1}'s order. */
    public static Group intersection(final Group group1, final Group group2) throws MPIException {
        MPI.check();
        return new Group(Arrays.stream(group1.members).filter(m -> group2.indexOf(m) >= 0).toArray());
    }

    /** The members of {@code group1} that are not in {@code group2}, in {@code group1}'s order. */
    public static Group difference(final Group group1, final Group group2) throws MPIException {
        MPI.check();
        return new Group(Arrays.stream(group1.members).filter(m -> group2.indexOf(m) < 0).toArray());
    }

    int indexOf(final int jobRank) {
        for (int i = 0; i < members.length; i++) {
            if (members[i] == jobRank) {
                return i;
            }
        }
        return MPI.UNDEFINED;
    }

    private void checkRank(final int r) throws MPIException {
        if (r < 0 || r >= members.length) {
            throw new MPIException(MPI.ERR_RANK, "rank " + r + " is not in a group of " + members.length);
        }
    }

    private void checkDistinct(final int[] ranks) throws MPIException {
        if (ranks == null) {
            throw new MPIException(MPI.ERR_ARG, "null rank list");
        }
        final boolean[] seen = new boolean[members.length];
        for (final int r : ranks) {
            checkRank(r);
            if (seen[r]) {
                throw new MPIException(MPI.ERR_RANK, "rank " + r + " is listed twice");
            }
            seen[r] = true;
        }
    }

    private int[] expand(final int[][] ranges) throws MPIException {
        final java.util.List<Integer> out = new java.util.ArrayList<>();
        for (final int[] t : ranges) {
            if (t == null || t.length != 3 || t[2] == 0) {
                throw new MPIException(MPI.ERR_ARG, "a range is {first, last, stride} with a non-zero stride");
            }
            for (int r = t[0]; t[2] > 0 ? r <= t[1] : r >= t[1]; r += t[2]) {
                out.add(r);
                if (out.size() > members.length) {
                    throw new MPIException(MPI.ERR_RANK, "ranges list more ranks than the group has");
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public String toString() {
        return "Group" + Arrays.toString(members);
    }
}
