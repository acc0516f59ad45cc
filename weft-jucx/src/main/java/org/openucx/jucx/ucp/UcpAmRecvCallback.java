package org.openucx.jucx.ucp;

/** Receives the active messages of one id ({@link UcpWorker#setAmRecvHandler}); runs from progress. */
public interface UcpAmRecvCallback {
    /**
     * @param headerAddress where the user header is (valid during the call)
     * @param headerSize    its length
     * @param amData        the data: eager (valid during the call, longer if UCS_INPROGRESS is returned) or
     *                      rendezvous (receive it with {@link UcpAmData#receive})
     * @param replyEp       the endpoint back to the sender when it sent with {@code UCP_AM_SEND_FLAG_REPLY}
     * @return {@code UCS_OK} when done with the data, {@code UCS_INPROGRESS} to keep it until
     *     {@link UcpWorker#amDataRelease} (or {@link UcpAmData#close()})
     */
    int onReceive(long headerAddress, long headerSize, UcpAmData amData, UcpEndpoint replyEp);
}
