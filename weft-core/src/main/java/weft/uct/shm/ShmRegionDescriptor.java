package weft.uct.shm;

import weft.ucs.memory.SharedMemory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Layout of a memory file made by {@link ShmMemoryDomain#allocate}: the user's bytes, then, on a page
 * of its own, a state word the owner clears when it deregisters the region. A peer that mapped the
 * file through a key reads the word (acquire) before every access, so an access after the owner
 * unmapped fails with INVALID_RKEY instead of writing into memory nobody owns any more (the peer's
 * mapping stays valid: never a crash).
 *
 * <pre>
 *  0                              pageAlign(length)          +8
 *  +------------------------------+--------------------------+
 *  | user memory (length bytes,   | state u64: LIVE or 0     |
 *  |  zero padded to a page)      | (rest of the page unused)|
 *  +------------------------------+--------------------------+
 * </pre>
 */
final class ShmRegionDescriptor {
    /** State word of a registered region ("WEFTLIVE"); anything else means revoked. */
    static final long LIVE = 0x5745_4654_4C49_5645L;
    static final long REVOKED = 0;
    private static final VarHandle STATE = ValueLayout.JAVA_LONG.varHandle();

    private ShmRegionDescriptor() {
    }

    /** Offset of the state word for a region of {@code length} user bytes. */
    static long stateOffset(final long length) {
        return SharedMemory.pageAlign(length);
    }

    /** Bytes to create / map for a region of {@code length} user bytes. */
    static long fileSize(final long length) {
        return stateOffset(length) + 8;
    }

    /** The state word of a mapping of the whole file. */
    static MemorySegment state(final MemorySegment file, final long length) {
        return file.asSlice(stateOffset(length), 8);
    }

    /** Marks the region live; the release store publishes the (zeroed) memory before any peer sees LIVE. */
    static void publishLive(final MemorySegment state) {
        STATE.setRelease(state, 0L, LIVE);
    }

    /** Revokes the region: peers' accesses that read the word after this store fail. */
    static void revoke(final MemorySegment state) {
        STATE.setRelease(state, 0L, REVOKED);
    }

    /** True while the owner keeps the region registered. No allocation. */
    static boolean isLive(final MemorySegment state) {
        return (long) STATE.getAcquire(state, 0L) == LIVE;
    }
}
