package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxNativeStruct;
import weft.ucp.Rkey;

import java.io.Closeable;

/** A peer's memory as seen through one endpoint ({@link UcpEndpoint#unpackRemoteKey}). */
public class UcpRemoteKey extends UcxNativeStruct implements Closeable {
    final Rkey weft;

    UcpRemoteKey(final Rkey key) {
        this.weft = key;
        setNativeId(newId());
    }

    /** Destroys the key (operations on it must have completed). */
    @Override
    public void close() {
        if (getNativeId() != null) {
            setNativeId(null);
            weft.close();
        }
    }
}
