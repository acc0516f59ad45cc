package weft.tools;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code weft info -c}: every layer's variables are listed, each with doc, syntax and value. */
class InfoConfigTest {
    @Test
    void listsTheVariablesOfEveryLayer() {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        InfoCommand.printConfig(new PrintStream(b, true, StandardCharsets.UTF_8));
        final Map<String, String> values = new HashMap<>();
        final String[] lines = b.toString(StandardCharsets.UTF_8).split("\n");
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].startsWith("#")) {
                final int eq = lines[i].indexOf('=');
                values.put(lines[i].substring(0, eq), lines[i].substring(eq + 1));
                assertTrue(lines[i - 1].startsWith("# syntax: "), "syntax line before " + lines[i]);
                assertTrue(lines[i - 2].length() > 3, "doc line before " + lines[i]);
            }
        }
        for (final String v : new String[] {"WEFT_TLS", "WEFT_SHM_FIFO_SIZE", "WEFT_TCP_SEG_SIZE", "WEFT_RNDV_THRESH",
            "WEFT_KEEPALIVE_INTERVAL", "WEFT_STREAM_WINDOW", "WEFT_UNEXPECTED_BUDGET", "WEFT_BOOTSTRAP_TIMEOUT",
            "WEFT_SYMMETRIC_SIZE", "WEFT_SHMEM_BCAST_RADIX", "WEFT_SHMEM_COLLECT_RING_BYTES", "WEFT_SHMEM_REDUCE_RING_BYTES",
            "WEFT_SHMEM_WAIT_BLOCK_AFTER"}) {
            assertTrue(values.containsKey(v), v + " missing from info -c: " + values.keySet());
        }
        assertEquals("auto", values.get("WEFT_RNDV_THRESH"), "the default shows as auto");
        assertEquals("64k", values.get("WEFT_SHMEM_REDUCE_RING_BYTES"), "the OpenSHMEM layer's thresholds are listed");
    }
}
