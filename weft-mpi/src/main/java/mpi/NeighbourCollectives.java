package mpi;

/**
 * The neighbour collectives of a topology ({@link CartComm}, {@link GraphComm}) as {@link Schedule}s: every
 * transfer to and from the rank's neighbours in one round, each message tagged with its place among those
 * between the same two ranks.
 */
final class NeighbourCollectives {
    private NeighbourCollectives() {
    }

    /** This rank's block goes to every out-neighbour; block i comes from in-neighbour i. */
    static Schedule allgatherv(final Comm c, final Neighbours nb, final Span send, final int sendCount,
                               final Datatype sendType, final Span recv, final int[] counts, final int[] displs,
                               final Datatype recvType) {
        final Schedule s = Schedule.of(c);
        for (int i = 0; i < nb.in().length; i++) {
            if (nb.in()[i] != MPI.PROC_NULL) {
                s.recv(nb.in()[i], recv.at(displs[i] * recvType.extent()), counts[i], recvType, nb.inSub()[i]);
            }
        }
        for (int j = 0; j < nb.out().length; j++) {
            if (nb.out()[j] != MPI.PROC_NULL) {
                s.send(nb.out()[j], send, sendCount, sendType, nb.outSub()[j]);
            }
        }
        return s.finish(recv);
    }

    /** Block j goes to out-neighbour j; block i comes from in-neighbour i. */
    static Schedule alltoallv(final Comm c, final Neighbours nb, final Span send, final int[] sendCounts,
                              final int[] sendDispls, final Datatype sendType, final Span recv,
                              final int[] recvCounts, final int[] recvDispls, final Datatype recvType) {
        final Schedule s = Schedule.of(c);
        for (int i = 0; i < nb.in().length; i++) {
            if (nb.in()[i] != MPI.PROC_NULL) {
                s.recv(nb.in()[i], recv.at(recvDispls[i] * recvType.extent()), recvCounts[i], recvType,
                    nb.inSub()[i]);
            }
        }
        for (int j = 0; j < nb.out().length; j++) {
            if (nb.out()[j] != MPI.PROC_NULL) {
                s.send(nb.out()[j], send.at(sendDispls[j] * sendType.extent()), sendCounts[j], sendType,
                    nb.outSub()[j]);
            }
        }
        return s.finish(recv);
    }
}
