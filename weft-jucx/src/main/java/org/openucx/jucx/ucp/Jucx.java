package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucs.UcsConstants;
import weft.ucp.Request;
import weft.ucp.TagInfo;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The bridge to Weft: status codes, raw addresses and requests. JUCX names memory by raw address: every
 * operation passes {@link #ALL} (the whole address space) with the address as the offset, so no segment is
 * made per operation.
 */
final class Jucx {
    /** Every address: operations take (ALL, address, length). */
    @SuppressWarnings("restricted") // JUCX's API hands raw native addresses: the caller vouches for them
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    /** The length and tag of a receive that completed inside its call (one per thread: no allocation). */
    private static final ThreadLocal<TagInfo> INFO = ThreadLocal.withInitial(TagInfo::new);

    private Jucx() {
    }

    static TagInfo info() {
        return INFO.get();
    }

    /** UCX's code for a Weft status. */
    static int code(final Status st) {
        return switch (st) {
            case OK -> UcsConstants.STATUS.UCS_OK;
            case IN_PROGRESS -> UcsConstants.STATUS.UCS_INPROGRESS;
            case NO_RESOURCE -> UcsConstants.STATUS.UCS_ERR_NO_RESOURCE;
            case BUSY -> UcsConstants.STATUS.UCS_ERR_BUSY;
            case NO_MESSAGE -> UcsConstants.STATUS.UCS_ERR_NO_MESSAGE;
            case IO_ERROR -> UcsConstants.STATUS.UCS_ERR_IO_ERROR;
            case NO_MEMORY -> UcsConstants.STATUS.UCS_ERR_NO_MEMORY;
            case INVALID_PARAM, INVALID_RKEY -> UcsConstants.STATUS.UCS_ERR_INVALID_PARAM;
            case UNREACHABLE -> UcsConstants.STATUS.UCS_ERR_UNREACHABLE;
            case INVALID_ADDRESS -> UcsConstants.STATUS.UCS_ERR_INVALID_ADDR;
            case UNSUPPORTED -> UcsConstants.STATUS.UCS_ERR_UNSUPPORTED;
            case MESSAGE_TRUNCATED -> UcsConstants.STATUS.UCS_ERR_MESSAGE_TRUNCATED;
            case NO_ELEMENT -> UcsConstants.STATUS.UCS_ERR_NO_ELEM;
            case CANCELED -> UcsConstants.STATUS.UCS_ERR_CANCELED;
            case BUFFER_TOO_SMALL -> UcsConstants.STATUS.UCS_ERR_BUFFER_TOO_SMALL;
            case ENDPOINT_TIMEOUT -> UcsConstants.STATUS.UCS_ERR_ENDPOINT_TIMEOUT;
            case CONNECTION_RESET -> UcsConstants.STATUS.UCS_ERR_CONNECTION_RESET;
            case REJECTED -> UcsConstants.STATUS.UCS_ERR_REJECTED;
            case OUT_OF_RANGE -> UcsConstants.STATUS.UCS_ERR_OUT_OF_RANGE;
            case CLOSED -> UcsConstants.STATUS.UCS_ERR_NOT_CONNECTED;
            case TIMED_OUT -> UcsConstants.STATUS.UCS_ERR_TIMED_OUT;
        };
    }

    /** A readable name for a UCX code. */
    static String name(final int code) {
        for (final java.lang.reflect.Field f : UcsConstants.STATUS.class.getFields()) {
            try {
                if (f.getInt(null) == code && !f.getName().startsWith("UCS_ERR_FIRST")
                    && !f.getName().startsWith("UCS_ERR_LAST")) {
                    return f.getName();
                }
            } catch (final IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return "status " + code;
    }

    /** Weft's exception as JUCX's. */
    static UcxException error(final WeftException e) {
        final UcxException u = new UcxException(e.getMessage(), code(e.status()));
        u.initCause(e);
        return u;
    }

    static UcxException unsupported(final String what) {
        return new UcxException(what + " is not supported by Weft's JUCX", UcsConstants.STATUS.UCS_ERR_UNSUPPORTED);
    }

    /**
     * JUCX's request for a Weft send (or flush, put, get): the shared DONE when it finished at once with no
     * callback, a completed request (callback run now) for other immediate results, else a request in
     * progress. An operation that failed inside its call throws, as JUCX does.
     */
    static UcpRequest track(final Request r, final UcxCallback cb) {
        if (r == Request.done(r.status())) { // a shared done request: finished inside the call
            final Status st = failOrStatus(r);
            return cb == null && st == Status.OK ? UcpRequest.DONE : UcpRequest.completed(code(st), 0, 0, cb);
        }
        return new UcpRequest.Pending(r, cb);
    }

    /**
     * As {@link #track} for a receive: {@code doneLength} is the length of a receive that finished inside its
     * call (-1: a tag receive, whose length and tag are in {@link #info()}).
     */
    static UcpRequest trackRecv(final Request r, final UcxCallback cb, final long doneLength) {
        if (r == Request.done(r.status())) {
            final Status st = failOrStatus(r);
            final TagInfo i = doneLength < 0 ? info() : null;
            final long n = i != null ? i.length() : doneLength;
            return UcpRequest.completed(code(st), n, i != null ? i.senderTag() : 0, cb);
        }
        return new UcpRequest.Pending(r, cb);
    }

    private static Status failOrStatus(final Request r) {
        final Status st = r.status();
        if (st.isError() && st != Status.MESSAGE_TRUNCATED) {
            throw new UcxException("operation failed: " + st, code(st));
        }
        return st;
    }

    /** A gather or scatter list of raw addresses as a core {@link weft.uct.IoVector} (no copy). */
    static weft.uct.IoVector iov(final long[] addresses, final long[] sizes) {
        org.openucx.jucx.UcxParams.checkArraySizes(addresses, sizes);
        final weft.uct.IoVector v = new weft.uct.IoVector(Math.max(1, sizes.length));
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] < 0) {
                throw new UcxException("negative size " + sizes[i], UcsConstants.STATUS.UCS_ERR_INVALID_PARAM);
            }
            v.add(ALL, addresses[i], sizes[i]);
        }
        return v;
    }

    /** Only host memory: other types are refused clearly. */
    static void checkHost(final int memoryType) {
        if (memoryType != UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_HOST
            && memoryType != UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_UNKNOWN) {
            throw new UcxException("memory type " + memoryType + " is not supported (Weft moves host memory only)",
                UcsConstants.STATUS.UCS_ERR_UNSUPPORTED);
        }
    }

    static void checkHost(final UcpRequestParams p) {
        if (p != null) {
            checkHost(p.memoryType);
        }
    }

    /** A buffer's bytes from its position to its limit, as a segment (heap or direct). */
    static MemorySegment segment(final ByteBuffer b) {
        return MemorySegment.ofBuffer(b);
    }

    static byte[] bytes(final ByteBuffer b) {
        final byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    static ByteBuffer direct(final byte[] a) {
        final ByteBuffer b = ByteBuffer.allocateDirect(a.length);
        b.put(a).flip();
        return b;
    }

}
