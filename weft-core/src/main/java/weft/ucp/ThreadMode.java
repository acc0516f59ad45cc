package weft.ucp;

/**
 * How many threads may use a {@link Worker}. The mode is enforced: a call that breaks it fails with
 * {@link weft.ucs.WeftException} instead of corrupting the worker.
 *
 * <p>One worker per thread in {@link #SINGLE} mode is the scalable pattern; {@link #MULTI} takes a lock
 * around every call.
 */
public enum ThreadMode {
    /** Only the thread that first uses the worker may use it (checked on every call, no atomics). */
    SINGLE,
    /** Any thread, but never two at once (a concurrent call fails fast). */
    SERIALIZED,
    /** Any threads concurrently; the worker serializes calls with a lock. */
    MULTI
}
