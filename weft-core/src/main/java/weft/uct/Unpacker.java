package weft.uct;

import java.lang.foreign.MemorySegment;

/** Receives the data of a {@link Endpoint#getBcopy} (UCT's unpack callback). */
@FunctionalInterface
public interface Unpacker {
    /** Consumes {@code length} bytes of {@code src} at {@code offset}; must not keep a reference. */
    void unpack(MemorySegment src, long offset, long length);
}
