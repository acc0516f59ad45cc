package weft.uct.tcp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The replay window {@code WEFT_TCP_REPLAY_WINDOW} configures ({@link TcpSendGate#window}); the window at work is
 * {@link TcpReplayBoundTest#aBulkStreamOfZeroCopyMessagesWaitsAtTheReplayWindow}.
 */
class TcpSendGateTest {
    private static final int MIB = 1 << 20;

    @Test
    void theWindowIsWhatIsAskedWithinTheMinimumAndTheReplayLogsSize() {
        assertEquals(2 * MIB, TcpSendGate.window(2 * MIB, 64 * MIB), "the default");
        assertEquals(TcpSendGate.MIN_WINDOW, TcpSendGate.window(4096, 64 * MIB),
            "never below 4 x ACK_EVERY: the receiver acknowledges before the sender stops");
        assertEquals(64 * MIB, TcpSendGate.window(1L << 40, 64 * MIB), "never above TCP_REPLAY_MAX");
        assertEquals(TcpSendGate.MIN_WINDOW, TcpSendGate.window(8 * MIB, 256 * 1024),
            "a replay log smaller than the minimum does not shrink the window below it");
        assertEquals(4 * TcpConnection.ACK_EVERY, TcpSendGate.MIN_WINDOW);
    }
}
