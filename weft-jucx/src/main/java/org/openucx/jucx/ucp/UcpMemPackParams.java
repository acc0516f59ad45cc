package org.openucx.jucx.ucp;

import org.openucx.jucx.UcxParams;

/** Parameters of packing a memory handle: only the remote-key form is supported. */
public class UcpMemPackParams extends UcxParams {
    long flags;

    @Override
    public UcpMemPackParams clear() {
        super.clear();
        flags = 0L;
        return this;
    }

    /** Pack for export to another process: not supported (refused with UNSUPPORTED). */
    public UcpMemPackParams exported() {
        flags |= UcpConstants.UCP_MEMH_PACK_FLAG_EXPORT;
        fieldMask |= UcpConstants.UCP_MEMH_PACK_PARAM_FIELD_FLAGS;
        return this;
    }
}
