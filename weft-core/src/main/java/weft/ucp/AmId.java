package weft.ucp;

/**
 * The uct active-message ids the protocol layer uses. Each message's layout is one descriptor class of
 * {@link weft.ucp.wire}, used by its writer and its reader:
 *
 * <pre>
 *  WIREUP        WireupMessage
 *  EAGER         EagerHeader (am short: header = tag) ............................ TagEager
 *  EAGER_FIRST   EagerFirstHeader ................................................ TagEager
 *  EAGER_MIDDLE  FragmentHeader (id = receiver's endpoint) ........................ TagEager
 *  SYNC_ACK      ControlMessage (id = sender request) ............................. TagEager
 *  RNDV_RTS      RtsHeader + KeyList ............................................. RndvSend / RndvRecv
 *  RNDV_ATS      ControlMessage (sender request, status code) ..................... RndvRecv / RndvSend
 *  RNDV_RTR      ControlMessage (sender request, receiver request | RTR_ANY_ORDER when the receiver
 *                places pieces in any order: the sender may stripe them over lanes)
 *  RNDV_DATA     FragmentHeader (id = receiver request) .......................... RndvSend / RndvRecv
 *  RNDV_RTR_PUT  RtrPutHeader + KeyList ........................................... RndvPut
 *  RNDV_ATP      ControlMessage (receiver request, status code): the put data is in place
 *  AM_SHORT, AM_SINGLE, AM_FIRST, AM_RTS   AmHeader (AM_RTS: RtsHeader + KeyList + trailer) . ActiveMessages
 *  AM_MIDDLE     FragmentHeader (id = receiver's endpoint) ........................ ActiveMessages
 *  STREAM_DATA   StreamHeader ..................................................... Streams
 *  STREAM_ACK    ControlMessage (receiver's endpoint, bytes consumed so far) ...... Streams
 *  FLOW          ControlMessage (receiver's endpoint, 1 = stop, 0 = go) ........... FlowControl
 *  EP_REMOVED    ControlMessage (receiver's endpoint, 0): the sender closed its endpoint
 *  KEEPALIVE     ControlMessage (receiver's endpoint, 0): the sender is alive and progressing
 *  SOFT_AMO      SoftAmoRequest; SOFT_AMO_REP, SOFT_AMO_NAK: ControlMessage ....... SoftAtomics
 *  SOFT_GET      SoftGetRequest (answered by SOFT_GET_DATA, an internal active message, or SOFT_AMO_NAK);
 *                emulated puts are internal active messages answered by SOFT_AMO_REP/NAK ...... SoftRma
 *  EAGER_GET_KEY, EAGER_GET   EagerGetHeader; EAGER_GET_DONE: ControlMessage (slot token) . EagerGet
 * </pre>
 *
 * "dst ep" / "receiver's endpoint" is the receiver's id for its endpoint to the sender, learned during
 * wireup, so the receiver finds the endpoint with an array index.
 */
final class AmId {
    static final int WIREUP = 1;
    static final int EAGER = 2;
    static final int EAGER_FIRST = 3;
    static final int EAGER_MIDDLE = 4;
    static final int SOFT_AMO = 5;
    static final int SOFT_AMO_REP = 6;
    static final int SOFT_AMO_NAK = 7;
    static final int SYNC_ACK = 8;
    static final int RNDV_RTS = 9;
    static final int RNDV_ATS = 10;
    static final int RNDV_RTR = 11;
    /** Flag in RNDV_RTR's value: the receiver takes RNDV_DATA pieces in any order. */
    static final long RTR_ANY_ORDER = 1L << 62;
    static final int RNDV_DATA = 12;
    static final int EAGER_GET = 20;
    static final int EAGER_GET_KEY = 21;
    static final int EAGER_GET_DONE = 24;
    static final int RNDV_RTR_PUT = 22;
    static final int RNDV_ATP = 23;
    static final int AM_SHORT = 13;
    static final int AM_SINGLE = 14;
    static final int AM_FIRST = 15;
    static final int AM_MIDDLE = 16;
    static final int AM_RTS = 17;
    static final int STREAM_DATA = 18;
    static final int STREAM_ACK = 19;
    static final int FLOW = 27;
    static final int EP_REMOVED = 29;
    static final int KEEPALIVE = 30;
    static final int SOFT_GET = 31;

    private AmId() {
    }
}
