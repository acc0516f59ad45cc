package weft.uct;

import weft.ucs.Status;

import java.lang.foreign.MemorySegment;

/**
 * Receives active messages of one id ({@link Interface#setAmHandler}). Called from
 * {@link Interface#progress()} only.
 *
 * <p>For {@link Endpoint#amShort} the data starts with the 8-byte header (little endian),
 * followed by the payload; for bcopy/zcopy it is exactly what the sender packed.
 */
@FunctionalInterface
public interface AmHandler {
    /** The data lives in a transport descriptor that the handler may keep ({@link #onReceive}). */
    int FLAG_DESC = 1;

    /**
     * Handles one message.
     *
     * @param data   memory holding the message (valid only during the call unless kept)
     * @param offset where the message starts in {@code data}
     * @param length message length
     * @param flags  {@link #FLAG_DESC} if the handler may keep the data
     * @return {@link Status#OK} when done with the data, or {@link Status#IN_PROGRESS} to keep it
     *     (only with {@link #FLAG_DESC}); then release it later with
     *     {@link Interface#releaseDescriptor(MemorySegment, long)}
     */
    Status onReceive(MemorySegment data, long offset, long length, int flags);
}
