package org.openucx.jucx;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** Conversions between native addresses and direct byte buffers. */
public class UcxUtils {
    private UcxUtils() {
    }

    /** A direct buffer over {@code [address, address + length)}; the memory must stay valid while it is used. */
    @SuppressWarnings("restricted") // the caller hands us a native address it owns: the API is about raw memory
    public static ByteBuffer getByteBufferView(long address, long length) {
        if (address == 0 || length < 0 || length > Integer.MAX_VALUE) {
            throw new UcxException("cannot view " + length + " bytes at 0x" + Long.toHexString(address) + " as a buffer");
        }
        return MemorySegment.ofAddress(address).reinterpret(length).asByteBuffer();
    }

    /** The native address of a direct buffer's current position. */
    public static long getAddress(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new UcxException("buffer is not direct: it has no native address");
        }
        return MemorySegment.ofBuffer(buffer).address(); // a buffer's segment starts at its position
    }
}
