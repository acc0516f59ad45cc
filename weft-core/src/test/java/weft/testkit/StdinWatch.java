package weft.testkit;

import java.io.IOException;
import java.io.Reader;

/** Child processes of tests: none outlives the test that started it. */
public final class StdinWatch {
    private StdinWatch() {
    }

    /**
     * Halts this process (status 3) once {@code in}, the parent's pipe to it, reaches its end: the
     * parent finished or died. Reads (and drops) everything else the parent sends.
     */
    public static void haltWhenClosed(final Reader in) {
        Thread.ofPlatform().daemon().start(() -> {
            try {
                while (in.read() >= 0) {
                    Thread.onSpinWait();
                }
            } catch (final IOException e) {
                System.err.println("stdin: " + e);
            }
            Runtime.getRuntime().halt(3);
        });
    }
}
