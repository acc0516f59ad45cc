package weft.uct.tcp;

import org.junit.jupiter.api.AfterEach;
import weft.ucs.Status;
import weft.ucs.config.Config;
import weft.uct.UctWorker;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * What the tcp failure and resume tests share: interfaces on workers of their own, every endpoint failure
 * they report collected in {@link #errors}, and everything opened closed after each test, newest first.
 */
abstract class TcpInterfaceFixture {
    final List<AutoCloseable> toClose = new ArrayList<>();
    final Arena arena = Arena.ofShared();
    final List<Status> errors = new ArrayList<>();

    @AfterEach
    final void closeEverything() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        arena.close();
    }

    /** An interface on a new worker with config {@code c}; its endpoints' failures go to {@link #errors}. */
    TcpInterface open(final Config c) {
        final UctWorker w = new UctWorker();
        toClose.add(w);
        return (TcpInterface) TcpTestSupport.open(w, c, (ep, st) -> errors.add(st));
    }
}
