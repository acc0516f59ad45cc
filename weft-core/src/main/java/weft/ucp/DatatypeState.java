package weft.ucp;

import weft.uct.IoVector;

/**
 * A request's non-contiguous data ({@link Datatypes}): an iov with its cursor, or a generic datatype with
 * the user's state. The kind itself stays in {@link Request#dt} (the one branch of the contiguous path).
 * One per pooled request.
 */
final class DatatypeState {
    IoVector iov;
    GenericDatatype generic;
    /** The generic datatype's state (or an RMA bounce buffer, {@link RmaBounce}). */
    Object state;
    /** Iov cursor: the entry index, and the message position where that entry starts. */
    int entry;
    long entryBase;
    /** A user pack or unpack threw: the request completes with IO_ERROR. */
    boolean failed;

    void reset() {
        iov = null;
        generic = null;
        state = null;
        entry = 0;
        entryBase = 0;
        failed = false;
    }

    boolean isPristine() {
        return iov == null && generic == null && state == null && entry == 0 && entryBase == 0 && !failed;
    }
}
