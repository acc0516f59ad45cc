package weft.ucp;

/**
 * Called once when a {@link Request} completes. Always called from {@link Worker#progress()} (or a
 * blocking wait that progresses the worker) on the thread that progresses, never from inside the call
 * that started the operation. The request stays valid after the call, showing this operation, until it is
 * released: call {@link Request#release()} (here is fine) to have it reused; one never released is garbage
 * collected.
 */
@FunctionalInterface
public interface RequestCallback {
    /** @param request the completed request: read {@link Request#status()}, tag and length here */
    void onComplete(Request request);
}
