package org.openucx.jucx.ucs;

/** UCS constants with UCX's numeric values (so that codes compare equal with native UCX's). */
public class UcsConstants {
    private UcsConstants() {
    }

    /** Thread modes of a worker. */
    public static class ThreadMode {
        /** Any thread may call the worker at any time. */
        public static final int UCS_THREAD_MODE_MULTI = 2;
    }

    /** Status codes ({@code ucs_status_t}). */
    public static class STATUS {
        public static final int UCS_OK = 0;
        public static final int UCS_INPROGRESS = 1;
        public static final int UCS_ERR_NO_MESSAGE = -1;
        public static final int UCS_ERR_NO_RESOURCE = -2;
        public static final int UCS_ERR_IO_ERROR = -3;
        public static final int UCS_ERR_NO_MEMORY = -4;
        public static final int UCS_ERR_INVALID_PARAM = -5;
        public static final int UCS_ERR_UNREACHABLE = -6;
        public static final int UCS_ERR_INVALID_ADDR = -7;
        public static final int UCS_ERR_NOT_IMPLEMENTED = -8;
        public static final int UCS_ERR_MESSAGE_TRUNCATED = -9;
        public static final int UCS_ERR_NO_PROGRESS = -10;
        public static final int UCS_ERR_BUFFER_TOO_SMALL = -11;
        public static final int UCS_ERR_NO_ELEM = -12;
        public static final int UCS_ERR_SOME_CONNECTS_FAILED = -13;
        public static final int UCS_ERR_NO_DEVICE = -14;
        public static final int UCS_ERR_BUSY = -15;
        public static final int UCS_ERR_CANCELED = -16;
        public static final int UCS_ERR_SHMEM_SEGMENT = -17;
        public static final int UCS_ERR_ALREADY_EXISTS = -18;
        public static final int UCS_ERR_OUT_OF_RANGE = -19;
        public static final int UCS_ERR_TIMED_OUT = -20;
        public static final int UCS_ERR_EXCEEDS_LIMIT = -21;
        public static final int UCS_ERR_UNSUPPORTED = -22;
        public static final int UCS_ERR_REJECTED = -23;
        public static final int UCS_ERR_NOT_CONNECTED = -24;
        public static final int UCS_ERR_CONNECTION_RESET = -25;
        public static final int UCS_ERR_FIRST_LINK_FAILURE = -40;
        public static final int UCS_ERR_LAST_LINK_FAILURE = -59;
        public static final int UCS_ERR_FIRST_ENDPOINT_FAILURE = -60;
        public static final int UCS_ERR_ENDPOINT_TIMEOUT = -80;
        public static final int UCS_ERR_LAST_ENDPOINT_FAILURE = -89;
        public static final int UCS_ERR_LAST = -100;
    }

    /** Memory types. Only host memory is supported here: the others are refused with UNSUPPORTED. */
    public static class MEMORY_TYPE {
        public static final int UCS_MEMORY_TYPE_HOST = 0;
        public static final int UCS_MEMORY_TYPE_CUDA = 1;
        public static final int UCS_MEMORY_TYPE_CUDA_MANAGED = 2;
        public static final int UCS_MEMORY_TYPE_ROCM = 3;
        public static final int UCS_MEMORY_TYPE_ROCM_MANAGED = 4;
        public static final int UCS_MEMORY_TYPE_LAST = 9;
        public static final int UCS_MEMORY_TYPE_UNKNOWN = UCS_MEMORY_TYPE_LAST;

        /** True if {@code memoryType}'s bit is set in {@code mask} (see {@code UcpContext.getMemoryTypesMask}). */
        public static boolean isMemTypeSupported(long mask, int memoryType) {
            return memoryType >= 0 && memoryType < 64 && (mask & (1L << memoryType)) != 0;
        }
    }
}
