package org.openucx.jucx.ucp;

import org.openucx.jucx.ucs.UcsConstants;

/** Per-operation parameters: the memory type of the local buffer and its registration. */
public class UcpRequestParams {
    int memoryType = UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_UNKNOWN;
    UcpMemory memHandle;

    public UcpRequestParams() {
    }

    /** Host memory only: other types make the operation fail with UNSUPPORTED. */
    public UcpRequestParams setMemoryType(int memType) {
        this.memoryType = memType;
        return this;
    }

    /** The registration that covers the buffer (a hint: Weft finds registrations itself). */
    public UcpRequestParams setMemoryHandle(UcpMemory memHandle) {
        this.memHandle = memHandle;
        return this;
    }
}
