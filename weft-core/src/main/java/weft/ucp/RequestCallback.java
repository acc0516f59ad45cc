package weft.ucp;

/**
 * Called once when a {@link Request} completes. Always called from {@link Worker#progress()} (or a
 * blocking wait that progresses the worker) on the thread that progresses, never from inside the call
 * that started the operation. The request is valid during the call and recycled after it returns.
 */
@FunctionalInterface
public interface RequestCallback {
    /** @param request the completed request: read {@link Request#status()}, tag and length here */
    void onComplete(Request request);
}
