package org.openucx.jucx.ucp;

/** UCP flags and field masks, with UCX's numeric values. */
public class UcpConstants {
    private UcpConstants() {
    }

    private static long bit(final int i) {
        return 1L << i;
    }

    static final long UCP_PARAM_FIELD_FEATURES = bit(0);
    static final long UCP_PARAM_FIELD_TAG_SENDER_MASK = bit(4);
    static final long UCP_PARAM_FIELD_MT_WORKERS_SHARED = bit(5);
    static final long UCP_PARAM_FIELD_ESTIMATED_NUM_EPS = bit(6);

    static final long UCP_FEATURE_TAG = bit(0);
    static final long UCP_FEATURE_RMA = bit(1);
    static final long UCP_FEATURE_AMO32 = bit(2);
    static final long UCP_FEATURE_AMO64 = bit(3);
    static final long UCP_FEATURE_WAKEUP = bit(4);
    static final long UCP_FEATURE_STREAM = bit(5);
    static final long UCP_FEATURE_AM = bit(6);
    static final long UCP_FEATURE_EXPORTED_MEMH = bit(7);

    static final long UCP_WORKER_PARAM_FIELD_THREAD_MODE = bit(0);
    static final long UCP_WORKER_PARAM_FIELD_CPU_MASK = bit(1);
    static final long UCP_WORKER_PARAM_FIELD_EVENTS = bit(2);
    static final long UCP_WORKER_PARAM_FIELD_USER_DATA = bit(3);
    static final long UCP_WORKER_PARAM_FIELD_EVENT_FD = bit(4);
    static final long UCP_WORKER_PARAM_FIELD_CLIENT_ID = bit(8);

    static final long UCP_WAKEUP_RMA = bit(0);
    static final long UCP_WAKEUP_AMO = bit(1);
    static final long UCP_WAKEUP_TAG_SEND = bit(2);
    static final long UCP_WAKEUP_TAG_RECV = bit(3);
    static final long UCP_WAKEUP_TX = bit(10);
    static final long UCP_WAKEUP_RX = bit(11);
    static final long UCP_WAKEUP_EDGE = bit(16);

    static final long UCP_LISTENER_PARAM_FIELD_SOCK_ADDR = bit(0);
    static final long UCP_LISTENER_PARAM_FIELD_ACCEPT_HANDLER = bit(1);
    static final long UCP_LISTENER_PARAM_FIELD_CONN_HANDLER = bit(2);

    static final long UCP_EP_PARAM_FIELD_REMOTE_ADDRESS = bit(0);
    static final long UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE = bit(1);
    static final long UCP_EP_PARAM_FIELD_ERR_HANDLER = bit(2);
    static final long UCP_EP_PARAM_FIELD_USER_DATA = bit(3);
    static final long UCP_EP_PARAM_FIELD_SOCK_ADDR = bit(4);
    static final long UCP_EP_PARAM_FIELD_FLAGS = bit(5);
    static final long UCP_EP_PARAM_FIELD_CONN_REQUEST = bit(6);
    static final long UCP_EP_PARAM_FIELD_NAME = bit(7);
    static final long UCP_EP_PARAM_FIELD_LOCAL_SOCK_ADDR = bit(8);

    static final int UCP_ERR_HANDLING_MODE_PEER = 1;
    static final long UCP_EP_PARAMS_FLAGS_CLIENT_SERVER = bit(0);
    static final long UCP_EP_PARAMS_FLAGS_NO_LOOPBACK = bit(1);
    static final long UCP_EP_PARAMS_FLAGS_SEND_CLIENT_ID = bit(2);
    static final int UCP_EP_CLOSE_FLAG_FORCE = 1;

    static final long UCP_MEM_MAP_PARAM_FIELD_ADDRESS = bit(0);
    static final long UCP_MEM_MAP_PARAM_FIELD_LENGTH = bit(1);
    static final long UCP_MEM_MAP_PARAM_FIELD_FLAGS = bit(2);
    static final long UCP_MEM_MAP_PARAM_FIELD_PROT = bit(3);
    static final long UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE = bit(4);
    static final long UCP_MEM_MAP_PARAM_FIELD_EXPORTED_MEMH_BUFFER = bit(5);
    static final long UCP_MEM_MAP_NONBLOCK = bit(0);
    static final long UCP_MEM_MAP_ALLOCATE = bit(1);
    static final long UCP_MEM_MAP_FIXED = bit(2);
    static final long UCP_MEMH_PACK_PARAM_FIELD_FLAGS = bit(0);
    static final long UCP_MEMH_PACK_FLAG_EXPORT = bit(0);

    public static final long UCP_MEM_MAP_PROT_LOCAL_READ = bit(0);
    public static final long UCP_MEM_MAP_PROT_LOCAL_WRITE = bit(1);
    public static final long UCP_MEM_MAP_PROT_REMOTE_READ = bit(8);
    public static final long UCP_MEM_MAP_PROT_REMOTE_WRITE = bit(9);

    /** Stream receive: complete only when the buffer is full. */
    public static final long UCP_STREAM_RECV_FLAG_WAITALL = bit(0);

    /** In {@link UcpAmData#getFlags()}: the data can be kept after the handler (return UCS_INPROGRESS). */
    public static final long UCP_AM_RECV_ATTR_FLAG_DATA = bit(16);
    /** In {@link UcpAmData#getFlags()}: rendezvous, the data is still at the sender (receive it). */
    public static final long UCP_AM_RECV_ATTR_FLAG_RNDV = bit(17);
    public static final long UCP_AM_SEND_FLAG_REPLY = bit(0);
    public static final long UCP_AM_SEND_FLAG_EAGER = bit(1);
    public static final long UCP_AM_SEND_FLAG_RNDV = bit(2);
    public static final long UCP_AM_FLAG_WHOLE_MSG = bit(0);
    public static final long UCP_AM_FLAG_PERSISTENT_DATA = bit(1);
}
