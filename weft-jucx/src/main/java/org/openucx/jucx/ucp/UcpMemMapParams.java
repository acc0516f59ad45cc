package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxParams;
import org.openucx.jucx.ucs.UcsConstants;

/** Parameters of {@link UcpContext#memoryMap}: register memory at an address, or allocate it. */
public class UcpMemMapParams extends UcxParams {
    private long address;
    private long length;
    long flags;
    long prot;
    int memoryType = UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_HOST;
    long exportedMemh;

    @Override
    public UcpMemMapParams clear() {
        super.clear();
        address = 0L;
        length = 0L;
        flags = 0L;
        prot = 0L;
        memoryType = UcsConstants.MEMORY_TYPE.UCS_MEMORY_TYPE_HOST;
        exportedMemh = 0L;
        return this;
    }

    public UcpMemMapParams setAddress(long address) {
        this.address = address;
        fieldMask |= UcpConstants.UCP_MEM_MAP_PARAM_FIELD_ADDRESS;
        return this;
    }

    public long getAddress() {
        return address;
    }

    public UcpMemMapParams setLength(long length) {
        this.length = length;
        fieldMask |= UcpConstants.UCP_MEM_MAP_PARAM_FIELD_LENGTH;
        return this;
    }

    public long getLength() {
        return length;
    }

    /** Allocate the memory (shared memory a same-node peer maps directly). */
    public UcpMemMapParams allocate() {
        return flag(UcpConstants.UCP_MEM_MAP_ALLOCATE);
    }

    /** Register lazily (recorded: Weft registers at once). */
    public UcpMemMapParams nonBlocking() {
        return flag(UcpConstants.UCP_MEM_MAP_NONBLOCK);
    }

    /** Allocate at exactly {@link #setAddress}. */
    public UcpMemMapParams fixed() {
        return flag(UcpConstants.UCP_MEM_MAP_FIXED);
    }

    /** Access rights ({@code UCP_MEM_MAP_PROT_*}; recorded: remote read and write are always granted). */
    public UcpMemMapParams setProtection(long protection) {
        this.prot = protection;
        fieldMask |= UcpConstants.UCP_MEM_MAP_PARAM_FIELD_PROT;
        return this;
    }

    /** The memory type: only {@code UCS_MEMORY_TYPE_HOST} is supported, others are refused with UNSUPPORTED. */
    public UcpMemMapParams setMemoryType(int memoryType) {
        this.memoryType = memoryType;
        fieldMask |= UcpConstants.UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
        return this;
    }

    /** Import memory another process exported: not supported (refused with UNSUPPORTED). */
    public UcpMemMapParams setExportedMemh(long expMemh) {
        this.exportedMemh = expMemh;
        fieldMask |= UcpConstants.UCP_MEM_MAP_PARAM_FIELD_EXPORTED_MEMH_BUFFER;
        return this;
    }

    boolean has(final long field) {
        return (fieldMask & field) != 0;
    }

    private UcpMemMapParams flag(final long bit) {
        flags |= bit;
        fieldMask |= UcpConstants.UCP_MEM_MAP_PARAM_FIELD_FLAGS;
        return this;
    }
}
