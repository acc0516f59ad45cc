package weft.ucp;

import weft.ucs.Status;

import java.lang.foreign.MemorySegment;

/**
 * Receives the active messages of one user id ({@link Worker#setAmHandler}). Runs from
 * {@link Worker#progress()}, on the progressing thread.
 *
 * <pre>{@code
 * worker.setAmHandler(3, (h, hOff, hLen, d, dOff, dLen, msg) -> {
 *     if (msg.isRendezvous()) {                 // data is still at the sender: pull it
 *         worker.recvAmData(msg, buf, 0, dLen); // (or return OK to drop it)
 *         return Status.OK;
 *     }
 *     MemorySegment.copy(d, dOff, buf, 0, dLen);
 *     return Status.OK;                         // IN_PROGRESS would keep the data: see below
 * }, 0);
 * }</pre>
 */
@FunctionalInterface
public interface AmRecvHandler {
    /**
     * Handles one message. The header is valid only during the call; so is the data unless the handler
     * keeps it.
     *
     * @param header       the user header (a zero-length segment when there is none)
     * @param headerOffset where the header starts in {@code header}
     * @param headerLength header bytes
     * @param data         the eager data, or {@link MemorySegment#NULL} for a rendezvous message
     * @param dataOffset   where the data starts in {@code data}
     * @param dataLength   data bytes (for rendezvous: the length the sender offers)
     * @param message      the message: reply endpoint, protocol; pass it to {@link Worker#recvAmData} or
     *                     {@link Worker#releaseAmData}
     * @return {@link Status#OK} when done with the message (an unclaimed rendezvous message is dropped: the
     *     sender still completes), or {@link Status#IN_PROGRESS} to keep it: eager data then stays valid at
     *     {@link AmMessage#data()} / {@link AmMessage#dataOffset()} until {@link Worker#releaseAmData}; a kept
     *     rendezvous message waits for {@link Worker#recvAmData} or {@link Worker#releaseAmData}
     */
    Status onReceive(MemorySegment header, long headerOffset, long headerLength, MemorySegment data, long dataOffset,
                     long dataLength, AmMessage message);
}
