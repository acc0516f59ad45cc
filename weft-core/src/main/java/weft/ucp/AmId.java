package weft.ucp;

/**
 * The uct active-message ids the protocol layer uses, and their wire layouts (little endian).
 *
 * <pre>
 *  WIREUP        [u8 type][u64 src ep][u64 dst ep][u64 conn sn][worker address...]
 *  EAGER         [u64 tag][data]                                   (am short: header = tag)
 *  EAGER_FIRST   [u64 tag][u64 dst ep][u64 total][u64 sync req or -1][data]
 *  EAGER_MIDDLE  [u64 dst ep][u64 offset][data]
 *  SYNC_ACK      am short, header = sender request id
 *  RNDV_RTS      [u64 tag][u64 dst ep][u64 total][u64 sender req][u64 address][u32 n]{[u16 len][rkey]}*n
 *  RNDV_ATS      am short, header = sender request id, [u64 status code]
 *  RNDV_RTR      am short, header = sender request id, [u64 receiver request id | RTR_ANY_ORDER if the
 *                receiver places pieces in any order: the sender may stripe them over lanes]
 *  RNDV_DATA     [u64 receiver request id][u64 offset][data]
 *  RNDV_RTR_PUT  [u64 sender req][u64 receiver req][u64 address][u64 length][u32 n]{[u16 len][rkey]}*n  (RndvPut)
 *  RNDV_ATP      am short, header = receiver request id, [u64 status code]: the put data is in place
 *
 *  user active messages (ActiveMessages); "am word" = [u32 user id][u32 send flags]
 *  AM_SHORT      am short, header = am word, [data]             (no user header, no reply)
 *  AM_SINGLE     [am word][u64 header length][u64 reply ep or -1][header][data]
 *  AM_FIRST      [am word][u64 header length][u64 reply ep or -1][u64 dst ep][u64 total][header+data prefix]
 *  AM_MIDDLE     [u64 dst ep][u64 offset][header+data bytes]     (offset into header+data)
 *  AM_RTS        as RNDV_RTS with the am word in place of the tag, then
 *                [u64 header length][u64 reply ep or -1][header]
 *
 *  streams (Streams)
 *  STREAM_DATA   [u64 dst ep][data]                              (am short: header = dst ep)
 *  STREAM_ACK    am short, header = dst ep, [u64 bytes the receiver consumed so far]
 *  FLOW          am short, header = dst ep, [u64 1 = stop, 0 = go]     (FlowControl)
 *  EP_REMOVED    am short, header = receiver's ep id, [u64 0]: the sender closed its endpoint
 *  KEEPALIVE     am short, header = receiver's ep id, [u64 0]: the sender is alive and progressing
 *
 *  emulated atomics (SoftAtomics): SOFT_AMO, SOFT_AMO_REP, SOFT_AMO_NAK; layouts there
 *  GET-based eager (EagerGet): EAGER_GET_KEY, EAGER_GET, EAGER_GET_DONE; layouts there
 * </pre>
 *
 * "dst ep" is the receiver's id for its endpoint to the sender, learned during wireup, so the receiver
 * finds the endpoint with an array index.
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

    static final int FIRST_HEADER = 32;
    static final int MIDDLE_HEADER = 16;
    static final int RTS_HEADER = 44;
    static final int DATA_HEADER = 16;
    static final int AM_SINGLE_HEADER = 24;
    static final int AM_FIRST_HEADER = 40;
    static final int AM_MIDDLE_HEADER = 16;
    static final int AM_RTS_TRAILER = 16;
    static final int STREAM_HEADER = 8;

    static final byte WIREUP_REQUEST = 1;
    static final byte WIREUP_REPLY = 2;

    private AmId() {
    }
}
