package weft.uct;

import weft.ucs.Status;

/** Told when an endpoint fails (peer dead, connection reset, timeout). Called from progress. */
@FunctionalInterface
public interface ErrorHandler {
    void onError(Endpoint endpoint, Status status);
}
