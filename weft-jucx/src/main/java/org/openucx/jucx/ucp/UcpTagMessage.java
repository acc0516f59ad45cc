package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxNativeStruct;
import weft.ucp.TagMessage;

/** A tag message found by {@link UcpWorker#tagProbeNonBlocking}: its length and tag. */
public class UcpTagMessage extends UcxNativeStruct {
    final TagMessage weft;
    private final long recvLength;
    private final long senderTag;

    UcpTagMessage(final TagMessage m) {
        this.weft = m;
        this.recvLength = m.length();
        this.senderTag = m.tag();
        setNativeId(newId());
    }

    public long getRecvLength() {
        return recvLength;
    }

    public long getSenderTag() {
        return senderTag;
    }
}
