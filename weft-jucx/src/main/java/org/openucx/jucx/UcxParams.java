package org.openucx.jucx;

/** Base of the parameter builders: a mask of the fields that were set. */
public abstract class UcxParams {
    protected long fieldMask;

    /** Unsets every field. */
    public UcxParams clear() {
        fieldMask = 0L;
        return this;
    }

    /** Checks that two arrays of a scatter/gather list have the same length. */
    public static void checkArraySizes(long[] array1, long[] array2) {
        if (array1.length != array2.length) {
            throw new UcxException("arrays of addresses and sizes differ in length: " + array1.length + " and "
                + array2.length);
        }
    }
}
