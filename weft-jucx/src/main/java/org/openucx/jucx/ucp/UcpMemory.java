package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxNativeStruct;
import org.openucx.jucx.ucs.UcsConstants;
import weft.ucp.MemoryMap;
import weft.ucs.WeftException;

import java.io.Closeable;
import java.nio.ByteBuffer;

/** Memory registered (or allocated) for one-sided access: its remote key goes to peers. */
public class UcpMemory extends UcxNativeStruct implements Closeable {
    private final UcpContext context;
    final MemoryMap weft;
    /** The registered buffer, kept reachable while registered. */
    private ByteBuffer data;
    private final long address;
    private final long length;

    UcpMemory(final UcpContext context, final MemoryMap map, final ByteBuffer data) {
        this.context = context;
        this.weft = map;
        this.data = data;
        this.address = map.address();
        this.length = map.length();
        setNativeId(newId());
    }

    /** Unregisters (frees allocated memory); peers' keys stop working. */
    public void deregister() {
        if (getNativeId() == null) {
            return;
        }
        setNativeId(null);
        data = null;
        weft.close();
        context.forget(this);
    }

    /** The packed remote key, for {@link UcpEndpoint#unpackRemoteKey} on a peer. */
    public ByteBuffer getRemoteKeyBuffer() {
        try {
            return Jucx.direct(weft.packRkey());
        } catch (final WeftException e) {
            throw Jucx.error(e);
        }
    }

    /** Exporting memory to another process is not supported. */
    public ByteBuffer getExportedMkeyBuffer() {
        throw Jucx.unsupported("exporting memory (UcpMemory.getExportedMkeyBuffer)");
    }

    public long getAddress() {
        return address;
    }

    public long getLength() {
        return length;
    }

    /** Always host memory. */
    public int getMemType() {
        return UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_HOST;
    }

    @Override
    public void close() {
        deregister();
    }
}
