package weft.tools.run;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies one PE's stdout or stderr to the launcher's, line by line so that lines of different PEs
 * never interleave, with a {@code [rank] } prefix when asked. Bytes are passed through unchanged.
 */
final class OutputPump implements Runnable {
    private final InputStream in;
    private final PrintStream target;
    private final byte[] prefix;
    private final Thread thread;

    OutputPump(final InputStream in, final PrintStream target, final String prefix, final String name) {
        this.in = in;
        this.target = target;
        this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
        thread = Thread.ofPlatform().daemon().name(name).unstarted(this);
    }

    void start() {
        thread.start();
    }

    /** Waits for the stream's end (the PE and everything holding its pipe exited). */
    boolean join(final long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    @Override
    public void run() {
        final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        final byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        line.write(buf, start, i + 1 - start);
                        emit(line);
                        start = i + 1;
                    }
                }
                line.write(buf, start, n - start);
            }
        } catch (final IOException e) {
            // the pipe broke because the PE died: what was read is flushed below
        }
        if (line.size() > 0) {
            line.write('\n');
            emit(line);
        }
    }

    private void emit(final ByteArrayOutputStream line) {
        synchronized (target) {
            target.write(prefix, 0, prefix.length);
            target.write(line.toByteArray(), 0, line.size());
            target.flush();
        }
        line.reset();
    }
}
