package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxNativeStruct;
import org.openucx.jucx.ucs.UcsConstants;
import weft.ucp.Request;
import weft.ucp.RequestCallback;

/**
 * A non-blocking operation: poll {@link #isCompleted()} (progressing the worker) or give a
 * {@link UcxCallback}. Operations that finish inside their call return a completed request; a send that
 * finished at once with nothing to report returns one shared completed request (no allocation).
 */
public class UcpRequest extends UcxNativeStruct {
    /** The shared request of an operation that finished inside its call with UCS_OK and no data to report. */
    static final UcpRequest DONE = new UcpRequest(UcsConstants.STATUS.UCS_OK);

    private long recvSize;
    private long senderTag;
    private volatile int status;
    private UcxCallback callback;
    /** The Weft request while in progress, for cancel; null once completed. */
    Request weft;

    private UcpRequest(final int status) {
        this.status = status;
    }

    /** A request in progress on {@code r} ({@link Pending} hears its completion); {@code cb} runs then. */
    UcpRequest(final Request r, final UcxCallback cb) {
        this.status = UcsConstants.STATUS.UCS_INPROGRESS;
        this.weft = r;
        this.callback = cb;
    }

    /**
     * A request in progress that is its Weft request's callback itself: one object per operation, not two
     * (a method reference would be a second). Package-private, so its callback method is no JUCX API.
     */
    static final class Pending extends UcpRequest implements RequestCallback {
        Pending(final Request r, final UcxCallback cb) {
            super(r, cb);
            r.whenComplete(this);
        }

        @Override
        public void onComplete(final Request r) {
            onWeftComplete(r);
        }
    }

    /** A request that finished inside its call; {@code cb} runs now (as JUCX calls it for such operations). */
    static UcpRequest completed(final int status, final long recvSize, final long senderTag, final UcxCallback cb) {
        final UcpRequest u = new UcpRequest(status);
        u.recvSize = recvSize;
        u.senderTag = senderTag;
        u.callback = cb;
        u.notifyCallback();
        return u;
    }

    /** Received bytes (for receives; the sender's length when the receive was truncated). */
    public long getRecvSize() {
        return recvSize;
    }

    /** The tag the sender used (tag receives). */
    public long getSenderTag() {
        return senderTag;
    }

    /** True once the operation finished, with success or an error. Does not progress the worker. */
    public boolean isCompleted() {
        return status != UcsConstants.STATUS.UCS_INPROGRESS;
    }

    /** {@code UCS_INPROGRESS} until completed, then {@code UCS_OK} or the error code. */
    public int getStatus() {
        return status;
    }

    final void onWeftComplete(final Request r) {
        recvSize = r.length();
        senderTag = r.senderTag();
        final int st = Jucx.code(r.status());
        weft = null;
        r.release();
        status = st;
        notifyCallback();
    }

    private void notifyCallback() {
        final UcxCallback cb = callback;
        if (cb == null) {
            return;
        }
        if (status == UcsConstants.STATUS.UCS_OK) {
            cb.onSuccess(this);
        } else {
            cb.onError(status, "operation failed: " + Jucx.name(status));
        }
    }

    @Override
    public String toString() {
        return "UcpRequest{status=" + Jucx.name(status) + ", recvSize=" + recvSize + ", senderTag=0x"
            + Long.toHexString(senderTag) + "}";
    }
}
