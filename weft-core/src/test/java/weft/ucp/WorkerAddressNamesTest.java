package weft.ucp;

import org.junit.jupiter.api.Test;
import weft.ucs.Status;
import weft.ucs.WeftException;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Transport and device names in a packed worker address: ASCII and other UTF-8 read back, other bytes refused. */
class WorkerAddressNamesTest {
    private static WorkerAddress.Entry entry(final String transport, final String device) {
        return new WorkerAddress.Entry(transport, device, 0, 0, 100, 10, 1e9, 1, 64, 8192, new byte[] {1, 2},
            new byte[] {3});
    }

    @Test
    void asciiAndOtherUtf8NamesReadBackAsWritten() {
        final WorkerAddress a = new WorkerAddress(42, List.of(entry("shm", "memory"), entry("tcp", "l\u00f6-\u20ac")));
        final WorkerAddress b = WorkerAddress.unpack(a.pack());
        assertEquals("shm", b.entries().get(0).transport());
        assertEquals("memory", b.entries().get(0).device());
        assertEquals("l\u00f6-\u20ac", b.entries().get(1).device());
    }

    @Test
    void aNameThatIsNotUtf8IsRefused() {
        final byte[] packed = new WorkerAddress(7, List.of(entry("shm", "xyz"))).pack();
        final byte[] xyz = "xyz".getBytes(StandardCharsets.US_ASCII);
        int at = -1;
        for (int i = 0; i + xyz.length <= packed.length && at < 0; i++) {
            if (packed[i] == xyz[0] && packed[i + 1] == xyz[1] && packed[i + 2] == xyz[2]) {
                at = i;
            }
        }
        packed[at + 1] = (byte) 0xff; // never a byte of UTF-8
        final WeftException e = assertThrows(WeftException.class, () -> WorkerAddress.unpack(packed));
        assertEquals(Status.INVALID_PARAM, e.status());
    }
}
