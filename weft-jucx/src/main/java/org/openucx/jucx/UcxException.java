package org.openucx.jucx;

/** An error of the UCX API, carrying a {@code UcsConstants.STATUS} code (0 when none was given). */
public class UcxException extends RuntimeException {
    private int status;

    public UcxException() {
        super();
    }

    public UcxException(String message) {
        super(message);
    }

    public UcxException(String message, int status) {
        super(message);
        this.status = status;
    }

    /** The status code of the failure. */
    public int getStatus() {
        return status;
    }
}
