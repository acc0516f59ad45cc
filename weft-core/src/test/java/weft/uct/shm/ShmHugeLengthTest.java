package weft.uct.shm;

import org.junit.jupiter.api.Test;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.InterfaceParams;
import weft.uct.MemoryHandle;
import weft.uct.RkeyCodec;
import weft.uct.UctWorker;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A peer's length within two pages of Long.MAX_VALUE made page rounding wrap around: a remote key of a
 * live region with such a length threw IndexOutOfBoundsException from unpackRkey (RemoteKeyFuzzTest#unpack,
 * input finding-shm-key-length-wraps), and an interface address with such a FIFO length mapped one page and
 * described it as a segment of 2^63 bytes (a native access past the mapping). Both are now INVALID_RKEY /
 * INVALID_ADDRESS.
 */
class ShmHugeLengthTest {
    @Test
    void keyLengthNearLongMaxIsInvalid() {
        final ShmMemoryDomain md = new ShmMemoryDomain();
        final MemoryHandle h = md.allocate(4096);
        try {
            final byte[] packed = md.packRkey(h);
            final ByteBuffer body = RkeyCodec.open("shm", packed);
            final int lengthAt = packed.length - body.remaining() + 32; // pid, fd, start, id, base, LENGTH
            ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN).putLong(lengthAt, Long.MAX_VALUE);
            final WeftException e = assertThrows(WeftException.class, () -> md.unpackRkey(packed));
            assertEquals(Status.INVALID_RKEY, e.status());
        } finally {
            md.deregister(h);
        }
    }

    @Test
    void fifoLengthNearLongMaxIsInvalid() {
        try (UctWorker w = new UctWorker()) {
            final ShmTransport t = new ShmTransport();
            final ShmInterface a = (ShmInterface) t.openInterface(w, t.devices().get(0), InterfaceParams.defaults());
            final ShmInterface b = (ShmInterface) t.openInterface(w, t.devices().get(0), InterfaceParams.defaults());
            try {
                final byte[] addr = b.interfaceAddress();
                // magic u32, pid u32, start time u64, fifo fd u32, fifo file id u64, FIFO LENGTH u64
                ByteBuffer.wrap(addr).order(ByteOrder.LITTLE_ENDIAN).putLong(28, Long.MAX_VALUE - 1);
                final WeftException e = assertThrows(WeftException.class, () -> a.connect(b.deviceAddress(), addr));
                assertEquals(Status.INVALID_ADDRESS, e.status());
            } finally {
                a.close();
                b.close();
            }
        }
    }
}
