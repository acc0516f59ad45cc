package weft.ucp;

import weft.uct.Interface;

import java.lang.foreign.MemorySegment;

/**
 * One received active message, as handed to an {@link AmRecvHandler}: which id, the reply endpoint, the
 * protocol, and where the data is. Valid during the handler call and, if the handler kept it, until
 * {@link Worker#recvAmData} completes or {@link Worker#releaseAmData} is called; the object is reused
 * afterwards (do not touch it then). Owned by the worker: no allocation per message.
 */
public final class AmMessage {
    // where the data lives
    static final byte TRANSIENT = 0; // in the transport's buffer: valid during the handler call only
    static final byte DESC = 1;      // in a transport descriptor the handler kept (released to the interface)
    static final byte POOLED = 2;    // in a buffer from the worker's unexpected pool
    static final byte RNDV = 3;      // still at the sender (rendezvous)

    // life cycle
    static final byte FREE = 0;
    static final byte IN_HANDLER = 1;
    static final byte KEPT = 2;

    final Worker worker;
    byte kind;
    byte state;
    boolean claimed; // recvAmData/releaseAmData was called during the handler
    int id;
    int sendFlags;
    Endpoint reply;
    MemorySegment data = MemorySegment.NULL;
    long dataOffset;
    long dataLength;
    // DESC
    Interface descIface;
    MemorySegment descSegment;
    long descOffset;
    // POOLED
    TagMessage buffer;
    // RNDV
    Endpoint rtsEp;
    long senderReq;
    long address;
    byte[][] keys;

    AmMessage(final Worker worker) {
        this.worker = worker;
    }

    /** The user AM id the sender used. */
    public int id() {
        return id;
    }

    /** The endpoint back to the sender if it sent with {@link AmFlags#SEND_REPLY}, else null. */
    public Endpoint replyEndpoint() {
        return reply;
    }

    /**
     * True if the data is still at the sender: receive it with {@link Worker#recvAmData} (in the handler,
     * or later after keeping the message) or drop it.
     */
    public boolean isRendezvous() {
        return kind == RNDV;
    }

    /** True if the data is in memory that outlives the handler call (it is kept by returning IN_PROGRESS). */
    public boolean isPersistent() {
        return kind == DESC || kind == POOLED;
    }

    /** The eager data's segment (after keeping: where the kept data is); NULL for rendezvous. */
    public MemorySegment data() {
        return data;
    }

    /** Where the data starts in {@link #data()}. */
    public long dataOffset() {
        return dataOffset;
    }

    /** Data bytes (for rendezvous: what the sender offers). */
    public long dataLength() {
        return dataLength;
    }

    void reset() {
        kind = TRANSIENT;
        state = FREE;
        claimed = false;
        id = sendFlags = 0;
        reply = null;
        data = MemorySegment.NULL;
        dataOffset = dataLength = 0;
        descIface = null;
        descSegment = null;
        descOffset = 0;
        buffer = null;
        rtsEp = null;
        senderReq = address = 0;
        keys = null;
    }

    @Override
    public String toString() {
        return "AmMessage[id=" + id + ", length=" + dataLength + (kind == RNDV ? ", rendezvous" : "") + "]";
    }
}
