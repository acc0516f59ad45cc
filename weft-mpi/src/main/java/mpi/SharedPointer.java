package mpi;

/**
 * The shared file pointer of an open {@link File} (in etypes of the view): one 64-bit word in rank 0's
 * registered control memory, which every rank of the file's communicator moves with ucp atomics (fetch-add
 * to claim a region, compare-and-swap to set it). The ranks are separate processes: the atomic is what makes
 * two concurrent {@code writeShared} calls claim disjoint regions. Over tcp rank 0 serves the atomics from
 * its own MPI calls, as for windows.
 */
final class SharedPointer {
    private static final int HOME = 0;
    /** The first control word of a window's peers, used here as the pointer itself. */
    private static final long WORD = WinPeers.LOCK_WORD;

    private final WinPeers peers;

    private SharedPointer(final WinPeers peers) {
        this.peers = peers;
    }

    /** Collective over {@code comm}: registers the word at rank 0 and swaps keys; the pointer starts at 0. */
    static SharedPointer create(final Comm comm) throws MPIException {
        return new SharedPointer(WinPeers.create(comm, java.lang.foreign.MemorySegment.NULL, 1));
    }

    /** Atomically advances the pointer by {@code etypes}; returns where it was (this caller's region). */
    long claim(final long etypes) throws MPIException {
        return peers.fetchAdd(HOME, WORD, etypes);
    }

    /** The pointer now. */
    long get() throws MPIException {
        return peers.fetchAdd(HOME, WORD, 0);
    }

    /** Sets the pointer to {@code value} (retrying while others move it). */
    void set(final long value) throws MPIException {
        long seen = get();
        long old = peers.compareSwap(HOME, WORD, seen, value);
        while (old != seen) {
            seen = old;
            old = peers.compareSwap(HOME, WORD, seen, value);
        }
    }

    /** Releases the registration and keys (after the ranks stopped using the pointer). */
    void close() throws MPIException {
        peers.flush(-1);
        peers.close();
    }
}
