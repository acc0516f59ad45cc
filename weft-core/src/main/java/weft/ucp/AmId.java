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
 *  RNDV_RTR      am short, header = sender request id, [u64 receiver request id]
 *  RNDV_DATA     [u64 receiver request id][u64 offset][data]
 *  EP_REMOVED    am short, header = receiver's ep id, [u64 0]: the sender closed its endpoint
 *  KEEPALIVE     am short, header = receiver's ep id, [u64 0]: the sender is alive and progressing
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
    static final int SYNC_ACK = 8;
    static final int RNDV_RTS = 9;
    static final int RNDV_ATS = 10;
    static final int RNDV_RTR = 11;
    static final int RNDV_DATA = 12;
    static final int EP_REMOVED = 29;
    static final int KEEPALIVE = 30;

    static final int FIRST_HEADER = 32;
    static final int MIDDLE_HEADER = 16;
    static final int RTS_HEADER = 44;
    static final int DATA_HEADER = 16;

    static final byte WIREUP_REQUEST = 1;
    static final byte WIREUP_REPLY = 2;

    private AmId() {
    }
}
