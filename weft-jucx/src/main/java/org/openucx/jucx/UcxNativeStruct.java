package org.openucx.jucx;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Base of the objects that JUCX backs by a native structure. Here nothing is native: the id is a unique
 * number given when the object is made, and null once it is closed. Equality is by id.
 */
public abstract class UcxNativeStruct {
    private static final AtomicLong NEXT_ID = new AtomicLong(1);
    private Long nativeId;

    /** A fresh id for an object being made. */
    protected static Long newId() {
        return NEXT_ID.getAndIncrement();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || getClass() != o.getClass()) {
            return false;
        }
        return nativeId != null && nativeId.equals(((UcxNativeStruct) o).nativeId);
    }

    @Override
    public int hashCode() {
        return nativeId != null ? nativeId.hashCode() : 0;
    }

    /** The object's id, or null once closed. */
    public Long getNativeId() {
        return nativeId;
    }

    protected void setNativeId(Long nativeId) {
        if (nativeId != null && nativeId < 0) {
            throw new UcxException("negative id " + nativeId);
        }
        this.nativeId = nativeId;
    }
}
