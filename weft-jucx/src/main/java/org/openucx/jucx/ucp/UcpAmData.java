package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxException;
import org.openucx.jucx.ucs.UcsConstants;

import java.io.Closeable;

/** The data of a received active message: eager (at an address) or rendezvous (still at the sender). */
public class UcpAmData implements Closeable {
    private final UcpWorker worker;
    private final long handle;
    private final long length;
    private final long flags;

    UcpAmData(final UcpWorker worker, final long handle, final long length, final long flags) {
        this.worker = worker;
        this.handle = handle;
        this.length = length;
        this.flags = flags;
    }

    @Override
    public String toString() {
        return "UcpAmData{length=" + length + (isDataValid() ? ", address=0x" + Long.toHexString(handle)
            : ", rendezvous") + "}";
    }

    /** True for eager data (at {@link #getDataAddress()}), false for rendezvous data (receive it). */
    public boolean isDataValid() {
        return (flags & UcpConstants.UCP_AM_RECV_ATTR_FLAG_RNDV) == 0;
    }

    /** True if returning UCS_INPROGRESS from the handler keeps the data valid after it. */
    public boolean canPersist() {
        return (flags & UcpConstants.UCP_AM_RECV_ATTR_FLAG_DATA) != 0;
    }

    public long getFlags() {
        return flags;
    }

    /** The eager data's address. */
    public long getDataAddress() {
        if (!isDataValid()) {
            throw new UcxException("rendezvous data has no address yet: receive it",
                UcsConstants.STATUS.UCS_ERR_INVALID_PARAM);
        }
        return handle;
    }

    public long getLength() {
        return length;
    }

    /** The handle {@link UcpWorker#recvAmDataNonBlocking} takes. */
    public long getDataHandle() {
        return handle;
    }

    /** Receives the data into {@code resultAddress} ({@link #getLength()} bytes). */
    public UcpRequest receive(long resultAddress, UcxCallback callback) {
        return worker.recvAmDataNonBlocking(handle, resultAddress, length, callback,
            UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_UNKNOWN);
    }

    /** Releases kept eager data. */
    @Override
    public void close() {
        if (isDataValid() && canPersist()) {
            worker.amDataRelease(handle);
        }
    }
}
