package org.openucx.jucx;

import org.openucx.jucx.ucp.UcpRequest;

/**
 * Completion callback of a non-blocking operation. Both methods run from {@code UcpWorker.progress()} on the
 * progressing thread; override the ones you need (the defaults do nothing).
 */
public class UcxCallback {
    /** The operation finished; {@code request} holds its status, received size and sender tag. */
    public void onSuccess(UcpRequest request) {
    }

    /** The operation failed with {@code ucsStatus} (a {@code UcsConstants.STATUS} code). */
    public void onError(int ucsStatus, String errorMsg) {
        throw new UcxException(errorMsg, ucsStatus);
    }
}
