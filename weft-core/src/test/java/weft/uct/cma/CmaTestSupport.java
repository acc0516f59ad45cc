package weft.uct.cma;

import weft.ucs.Status;
import weft.uct.Completion;
import weft.uct.Interface;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/** Helpers shared by the cma tests. */
final class CmaTestSupport {
    private CmaTestSupport() {
    }

    /** Progresses {@code iface} until {@code c} is done; fails after 20 s. Returns the status. */
    static Status await(final Interface iface, final Completion c) {
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (!c.isDone()) {
            iface.progress();
            if (System.nanoTime() > deadline) {
                fail("completion still has " + c.count() + " outstanding operations after 20 s");
            }
        }
        return c.status();
    }

    /** Runs an operation result to the end: OK now, or IN_PROGRESS then progress until complete. */
    static Status finish(final Interface iface, final Status st, final Completion c) {
        return st == Status.IN_PROGRESS ? await(iface, c) : st;
    }

    static long openFds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (final IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
