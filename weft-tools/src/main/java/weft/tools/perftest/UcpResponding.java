package weft.tools.perftest;

/**
 * The server's part of a protocol-layer test, driven by polling so that the same code runs in its
 * own process or inside the initiator's waits (loopback). {@link UcpResponder} answers two-sided
 * tests, {@link UcpRmaResponder} serves one-sided ones.
 */
interface UcpResponding {
    /**
     * Progresses the responder's worker and does its next steps.
     *
     * @return work done (0 = nothing happened)
     */
    int poll();

    /** True when this side has done its share of the test (replies, end-of-stream message). */
    boolean finished();

    /** What the responder did, for the message when the client ends the test early. */
    String handled();

    /**
     * Checks, after the client's end of the test, what the test left in this side's memory.
     *
     * @throws PerfException saying what is wrong
     */
    void verify();

    /** Releases what a failed or ended run left behind. */
    void abandon();
}
