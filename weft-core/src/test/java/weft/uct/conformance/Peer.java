package weft.uct.conformance;

/**
 * The other side of a conformance case: an interface of the transport under test that echoes
 * every active message back on the same id, and owns a registered region the test accesses
 * remotely. The region can be inspected and changed through the peer itself (never through the
 * transport under test), which is how the tests check what arrived at the target.
 *
 * <p>Offsets are relative to {@link #regionAddress()}. Methods are called from the test thread;
 * while a method waits for the peer it keeps the test's own worker progressing (through the
 * {@code progress} hook the peer was created with), so one-sided transports that need target
 * progress and transports that need initiator progress both work.
 */
public interface Peer extends AutoCloseable {
    /** Size of the peer region: 2 MiB for RMA, then 64 KiB for atomics and fence tests. */
    long REGION_LENGTH = (2L << 20) + (64 << 10);
    /** Start of the atomic words inside the region. */
    long ATOMIC_BASE = 2L << 20;
    /** Start of the fence test area inside the region. */
    long FENCE_BASE = ATOMIC_BASE + (16 << 10);

    /** Short description for messages. */
    String describe();

    /** True if the peer is the test interface itself (the transport reaches only its own interface). */
    boolean isLoopback();

    /** True if the peer runs in another process. */
    boolean isRemoteProcess();

    byte[] deviceAddress();

    byte[] interfaceAddress();

    /** The packed remote key of the region. */
    byte[] packedRkey();

    long regionAddress();

    long regionLength();

    /** Makes the peer connect back to the test interface and echo every AM through it. */
    void connectBack(byte[] deviceAddress, byte[] interfaceAddress);

    /** Closes the peer's endpoint to the test interface. */
    void disconnect();

    /** Stops progressing the peer's interface (it receives nothing until {@link #resume()}). */
    void pause();

    void resume();

    /** Progresses the peer if it lives in this thread's care (in-JVM); 0 otherwise. */
    int progress();

    byte[] read(long offset, int length);

    void write(long offset, byte[] data);

    void fill(long offset, long length, byte value);

    /** The 64-bit word at {@code offset}, read with acquire semantics. */
    long word(long offset);

    /** Starts {@code count} local CPU atomic adds of {@code value} to the word at {@code offset}. */
    Task localAdd(long offset, int width, long value, int count);

    /**
     * Starts a reader that waits until the 64-bit word at {@code flagOffset} equals {@code expect}
     * and then checks that each of the {@code words} 64-bit words at {@code dataOffset} equals
     * {@code expect} too. Result: "OK", "TIMEOUT" or "BAD ...".
     */
    Task watch(long dataOffset, int words, long flagOffset, long expect, long timeoutMs);

    /** Closes the peer's interface cleanly (the peer stays alive but its interface is gone). */
    void closeInterface();

    /** Kills the peer abruptly (SIGKILL); only for process peers. */
    void kill();

    /** A first error seen by the peer itself (echo failures), or null. */
    String error();

    /** Releases the peer. */
    @Override
    void close();

    /** An operation running at the peer. */
    interface Task {
        boolean isDone();

        /** The result line; only when done. */
        String result();
    }
}
