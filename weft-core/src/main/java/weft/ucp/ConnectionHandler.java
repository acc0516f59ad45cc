package weft.ucp;

/**
 * Told, from {@link Worker#progress()}, about each authenticated connection request a {@link Listener}
 * received. It must call {@link ConnectionRequest#accept()} or {@link ConnectionRequest#reject()},
 * now or later (from the worker's thread).
 */
@FunctionalInterface
public interface ConnectionHandler {
    /** A client asks to connect. */
    void onConnectionRequest(ConnectionRequest request);
}
