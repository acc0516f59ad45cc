package weft.ucp;

import java.lang.foreign.MemorySegment;

/** What an active-message send carries besides its data ({@link ActiveMessages}); one per pooled request. */
final class AmSendState {
    /** The request is an AM send: its rendezvous RTS carries the AM header. */
    boolean active;
    /** The user's AM id and flags ({@link AmFlags}). */
    int id;
    int flags;
    /** The user's header, {@code header[headerOffset, +headerLength)}. */
    MemorySegment header;
    long headerOffset;
    long headerLength;
    /** An internal message's header, copied in: its sender writes the next one into the same scratch. */
    final MemorySegment ownHeader = MemorySegment.ofArray(new long[OWN_HEADER / 8]);
    static final int OWN_HEADER = 40;

    void reset() {
        active = false;
        id = flags = 0;
        header = null;
        headerOffset = headerLength = 0;
    }

    boolean isPristine() {
        return !active && id == 0 && flags == 0 && header == null && headerOffset == 0 && headerLength == 0;
    }
}
