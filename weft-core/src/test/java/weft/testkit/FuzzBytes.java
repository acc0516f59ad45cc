package weft.testkit;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

import java.util.Arrays;

/**
 * Structure-aware inputs for the fuzz tests: a valid message (an address, a key, a frame) that the fuzzer
 * edits in a few places, so that it gets past checks it could not guess (a live process id, a memory
 * file, a MAC) and reaches the code behind them, or bytes of its own.
 */
public final class FuzzBytes {
    /** java.util.logging's "weft" logger, kept so that the level set by {@link #quietWhileFuzzing} stays. */
    private static Object weftLogger;

    private FuzzBytes() {
    }

    /**
     * While fuzzing ({@code JAZZER_FUZZ} set), turns off Weft's log lines (a warning per malformed message
     * costs more than the input and fills the report with gigabytes); replays keep them.
     */
    public static void quietWhileFuzzing() {
        final String f = System.getenv("JAZZER_FUZZ");
        if (f != null && !f.isEmpty() && weftLogger == null) {
            try { // reflectively: the module under test does not read java.logging
                final Class<?> logger = Class.forName("java.util.logging.Logger");
                final Class<?> level = Class.forName("java.util.logging.Level");
                weftLogger = logger.getMethod("getLogger", String.class).invoke(null, "weft");
                logger.getMethod("setLevel", level).invoke(weftLogger, level.getField("OFF").get(null));
            } catch (final ReflectiveOperationException e) {
                throw new IllegalStateException("cannot quiet the logs", e);
            }
        }
    }

    /**
     * Either raw bytes (first choice false) or {@code template} with up to 8 edits: a byte, a little-endian
     * u16, u32 or u64 written at an offset (the fuzzer picks lengths, counts and ids there), a cut, or bytes
     * appended.
     */
    public static byte[] edit(final FuzzedDataProvider data, final byte[] template) {
        if (!data.consumeBoolean()) {
            return data.consumeBytes(data.consumeInt(0, 4096));
        }
        byte[] b = template.clone();
        final int edits = data.consumeInt(0, 8);
        for (int i = 0; i < edits; i++) {
            final int kind = data.consumeInt(0, 5);
            if (kind == 4) {
                b = Arrays.copyOf(b, data.consumeInt(0, b.length));
                continue;
            }
            if (kind == 5) {
                final byte[] more = data.consumeBytes(data.consumeInt(0, 256));
                final byte[] c = Arrays.copyOf(b, b.length + more.length);
                System.arraycopy(more, 0, c, b.length, more.length);
                b = c;
                continue;
            }
            final int width = kind == 0 ? 1 : kind == 1 ? 2 : kind == 2 ? 4 : 8;
            if (b.length < width) {
                continue;
            }
            final int at = data.consumeInt(0, b.length - width);
            final long v = data.consumeLong();
            for (int k = 0; k < width; k++) {
                b[at + k] = (byte) (v >>> (8 * k));
            }
        }
        return b;
    }
}
