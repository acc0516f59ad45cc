package weft.ucp;

import weft.uct.MemoryHandle;
import weft.uct.RemoteKey;

/** A rendezvous in progress ({@link RndvSend}, {@link RndvRecv}, {@link RndvPut}); one per pooled request. */
final class RndvState {
    /** The peer's id of its request for this message (what ATS, ATP, RTR_PUT and RNDV_DATA name). */
    long peerReq;
    /** Registrations of this side's data (from {@link RndvCache}), released when the rendezvous ends. */
    MemoryHandle[] handles;
    /** The peer's keys, unpacked: what gets (receiver) or puts (sender) address. */
    RemoteKey[] peerKeys;
    /** Receiver by put: this side's packed keys, until RTR_PUT carried them. */
    byte[][] packedKeys;
    /** Receiver by put: the bytes the sender is to put. */
    long want;
    /** Sender: the receiver asked for puts (RTR_PUT) instead of getting the data. */
    boolean byPut;
    /** Sender by put: one bit per lane that carried puts and still needs a flush. */
    long lanesToFlush;
    /** Rendezvous over AM: the receiver takes the pieces in any order (striping allowed). */
    boolean anyOrder;

    void reset() {
        peerReq = 0;
        handles = null;
        peerKeys = null;
        packedKeys = null;
        want = 0;
        byPut = false;
        lanesToFlush = 0;
        anyOrder = false;
    }

    boolean isPristine() {
        return peerReq == 0 && handles == null && peerKeys == null && packedKeys == null && want == 0 && !byPut
            && lanesToFlush == 0 && !anyOrder;
    }
}
