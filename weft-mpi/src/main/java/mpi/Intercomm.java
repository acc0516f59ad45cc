package mpi;

/**
 * A communicator between two groups (MPI intercommunicator): point-to-point ranks name the members of the
 * remote group; {@link #merge} makes an intracommunicator of both. Made by
 * {@link Comm#createIntercomm}. Its collectives move data between the groups, as MPI defines them: a rooted
 * one takes {@link MPI#ROOT} at the root, {@link MPI#PROC_NULL} at the rest of the root's group and the root's
 * rank at the members of the other group; reductions combine the other group's data.
 */
public final class Intercomm extends Comm {
    /** This rank's own group as an intracommunicator (its collectives and merge's agreement run there). */
    private Comm local;

    Intercomm() {
    }

    /** The protocol of {@link Comm#createIntercomm}: agree on a context id over both groups, swap members. */
    static Intercomm create(final Comm localComm, final int localLeader, final Comm peerComm, final int remoteLeader,
                            final int tag) throws MPIException {
        if (localLeader < 0 || localLeader >= localComm.size) {
            throw new MPIException(MPI.ERR_RANK, "local leader " + localLeader + " outside the local group");
        }
        final boolean leader = localComm.rank == localLeader;
        final int[] mine = localComm.group.members;
        final int[] prop = {localComm.session.proposeCid()};
        final Span p = Span.of(prop);
        ReduceCollectives.allreduce(localComm.self(), p, p, 1, MPI.INT, MPI.MAX).run();
        // the leaders swap [proposal, size] then the member lists over the peer communicator
        final int[] head = {prop[0], 0};
        if (leader) {
            if (peerComm == null || remoteLeader < 0 || remoteLeader >= peerComm.size) {
                throw new MPIException(MPI.ERR_RANK, "remote leader " + remoteLeader + " outside the peer "
                    + "communicator");
            }
            peerComm.sendRecv(new int[] {prop[0], mine.length}, 2, MPI.INT, remoteLeader, tag, head, 2, MPI.INT,
                remoteLeader, tag);
        }
        Collectives.bcast(localComm.self(), Span.of(head), 2, MPI.INT, localLeader).run();
        final int[] theirs = new int[head[1]];
        if (leader) {
            peerComm.sendRecv(mine, mine.length, MPI.INT, remoteLeader, tag, theirs, theirs.length, MPI.INT,
                remoteLeader, tag);
        }
        Collectives.bcast(localComm.self(), Span.of(theirs), theirs.length, MPI.INT, localLeader).run();
        final int cid = Math.max(prop[0], head[0]);
        localComm.session.takeCid(cid);
        final Intercomm ic = new Intercomm();
        ic.setup(localComm.session, localComm.group, cid, "");
        ic.remote = new Group(theirs);
        ic.local = localComm.self();
        ic.errhandler = localComm.errhandler;
        return ic;
    }

    /** The number of ranks in the remote group. */
    public int getRemoteSize() throws MPIException {
        checkLive();
        return remote.members.length;
    }

    /** The remote group. */
    public Group getRemoteGroup() throws MPIException {
        checkLive();
        return remote;
    }

    /**
     * An intracommunicator of both groups (collective over both): the group that passes {@code high} false
     * comes first (if both pass the same, the group whose leader has the lower job rank).
     */
    public Intracomm merge(final boolean high) throws MPIException {
        checkLive();
        try {
            final int[] agreed = {session.proposeCid()};
            final Span a = Span.of(agreed);
            ReduceCollectives.allreduce(local, a, a, 1, MPI.INT, MPI.MAX).run();
            final int[] mine = {high ? 1 : 0, agreed[0]};
            final Span m = Span.of(mine);
            final int[] theirs = new int[2];
            // every rank takes the collective's sequence number, so that later collectives on this communicator
            // stay in step between the leaders and the rest
            final Coll k = new Coll(this);
            if (rank == 0) {
                // the leaders (rank 0 of each group) swap [high, proposal] on this communicator's collective context
                k.sendRecv(0, m.segment, 0, 8, 0, Span.of(theirs).segment, 0, 8);
            }
            Collectives.bcast(local, Span.of(theirs), 2, MPI.INT, 0).run();
            final int cid = Math.max(mine[1], theirs[1]);
            session.takeCid(cid);
            final boolean localFirst = mine[0] != theirs[0] ? mine[0] == 0 : group.members[0] < remote.members[0];
            final int[] first = localFirst ? group.members : remote.members;
            final int[] second = localFirst ? remote.members : group.members;
            final int[] all = new int[first.length + second.length];
            System.arraycopy(first, 0, all, 0, first.length);
            System.arraycopy(second, 0, all, first.length, second.length);
            final Intracomm merged = new Intracomm();
            merged.setup(session, new Group(all), cid, "");
            merged.setErrhandler(errhandler);
            return merged;
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** A copy of this intercommunicator with its own message space. */
    @Override
    public Intercomm dup() throws MPIException {
        checkLive();
        try {
            final Intracomm both = merge(false);
            final Intercomm c = new Intercomm();
            c.setup(session, group, both.cid, "");
            c.remote = remote;
            c.local = local;
            c.errhandler = errhandler;
            return c;
        } catch (final MPIException | RuntimeException e) {
            throw fail(e);
        }
    }

    /** The same as {@link #dup}; the hints are ignored. */
    @Override
    public Intercomm dupWithInfo(final Info info) throws MPIException {
        return dup();
    }

    @Override
    public Intercomm clone() {
        try {
            return dup();
        } catch (final MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The parent of a spawned job: spawning is not supported, so there is none (a null communicator). */
    public static Intercomm getParent() throws MPIException {
        MPI.check();
        return new Intercomm();
    }
}
