package weft.ucp;

import com.code_intelligence.jazzer.junit.FuzzTest;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzzing of {@link WorkerAddress#unpack}, the decoder of every worker address a peer sends
 * (wireup requests, the listener handshake, bootstrap exchanges). It may only return an address or throw
 * {@link WeftException} (INVALID_PARAM, or UNSUPPORTED for another version); an address it accepts packs
 * back to the same bytes.
 *
 * <p>Without {@code JAZZER_FUZZ=1} this replays the seeds and past findings in
 * {@code src/test/resources/weft/ucp/WorkerAddressFuzzTestInputs/unpack/} (a second or less); with it,
 * {@code bench/fuzz.sh WorkerAddressFuzzTest#unpack 2} fuzzes for two minutes.
 */
class WorkerAddressFuzzTest {
    @FuzzTest(maxDuration = "2m")
    void unpack(final byte[] bytes) {
        final WorkerAddress a;
        try {
            a = WorkerAddress.unpack(bytes);
        } catch (final WeftException e) {
            assertTrue(e.status() == Status.INVALID_PARAM || e.status() == Status.UNSUPPORTED, e::getMessage);
            return;
        }
        // accepted: it describes exactly these bytes
        assertArrayEquals(bytes, a.pack(), () -> "re-packed differently: " + Arrays.toString(bytes));
    }
}
