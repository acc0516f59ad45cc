package weft.ucp;

import java.lang.foreign.MemorySegment;

/**
 * A message that arrived before a matching receive was posted (an unexpected message), as returned by
 * {@link Worker#probeTag}. Receive it with {@link Worker#recvTag(TagMessage, MemorySegment, long, long)}
 * after a probe that removed it.
 */
public final class TagMessage {
    long tag;
    long length;      // the sender's total length
    long received;    // bytes buffered so far (eager) or 0 (rendezvous)
    long sn;
    boolean probedOut; // removed by a probe: only recvTag(TagMessage) may take it
    MemorySegment data;
    int sizeClass = -1;
    Endpoint ep;      // the local endpoint to the sender (for sync ack and rendezvous)
    long syncReqId = -1;
    // rendezvous
    boolean rts;
    long rtsAddress;
    byte[][] rkeys;
    Request attached; // a receive that matched while fragments are still arriving

    // unexpected queue links: per hash bucket and in arrival order
    TagMessage bnext;
    TagMessage bprev;
    TagMessage anext;
    TagMessage aprev;
    int bucket = -1;

    /** An empty message record (the worker fills it when a message arrives unexpected). */
    public TagMessage() {
    }

    /** The sender's tag. */
    public long tag() {
        return tag;
    }

    /** The sender's length in bytes. */
    public long length() {
        return length;
    }

    boolean isComplete() {
        return rts || received == length;
    }

    void reset() {
        tag = length = received = sn = 0;
        probedOut = false;
        ep = null;
        syncReqId = -1;
        rts = false;
        rtsAddress = 0;
        rkeys = null;
        attached = null;
        bnext = bprev = anext = aprev = null;
        bucket = -1;
    }
}
