package mpi;

import weft.ucp.AmMessage;

import java.lang.foreign.MemorySegment;

/**
 * A message that arrived before any receive matched it ({@link AmMatcher}): its tag and length, and its data
 * in a bounce buffer (eager) or still at the sender ({@link #rendezvous}, the kept ucp message). Also what
 * {@link Message} holds after a matched probe.
 */
final class AmUnexpected {
    long tag;
    long length;
    MemorySegment bounce;
    AmMessage rendezvous;
    int bucket;
    AmUnexpected prev;
    AmUnexpected next;
    AmUnexpected allPrev;
    AmUnexpected allNext;

    void clear() {
        bounce = null;
        rendezvous = null;
        tag = length = 0;
    }
}
