package weft.uct.cma;

import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryHandle;
import weft.uct.UctWorker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.zip.CRC32;

/**
 * A peer process for the cma tests: allocates and registers {@code args[0]} bytes, fills them with
 * a pattern, prints one line {@code READY <pid> <device hex> <iface hex> <rkey hex> <base>} and
 * then answers commands on stdin until stdin closes (then it exits):
 * {@code crc <offset> <length>} prints {@code CRC <value>}; {@code fill <seed>} refills the region
 * and prints {@code OK}.
 */
public final class CmaPeerMain {
    private CmaPeerMain() {
    }

    public static void main(final String[] args) throws Exception {
        final long size = Long.parseLong(args[0]);
        final CmaTransport t = new CmaTransport();
        if (t.devices().isEmpty()) {
            System.out.println("UNAVAILABLE " + t.unavailableReason());
            return;
        }
        try (UctWorker worker = new UctWorker()) {
            final Interface iface = t.openInterface(worker, t.devices().get(0), InterfaceParams.defaults());
            final MemoryHandle h = t.memoryDomain().allocate(size);
            final MemorySegment mem = h.segment();
            fill(mem, 1);
            final HexFormat hex = HexFormat.of();
            System.out.println("READY " + ProcessHandle.current().pid() + " " + hex.formatHex(iface.deviceAddress())
                + " " + hex.formatHex(iface.interfaceAddress()) + " " + hex.formatHex(t.memoryDomain().packRkey(h))
                + " " + h.address());
            System.out.flush();
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            String line;
            while ((line = in.readLine()) != null) {
                final String[] w = line.trim().split(" ");
                switch (w[0]) {
                    case "crc" -> System.out.println("CRC " + crc(mem, Long.parseLong(w[1]), Long.parseLong(w[2])));
                    case "fill" -> {
                        fill(mem, Long.parseLong(w[1]));
                        System.out.println("OK");
                    }
                    default -> System.out.println("ERROR unknown command " + w[0]);
                }
                System.out.flush();
            }
        }
    }

    /** Deterministic pattern depending on the seed and the position. */
    static void fill(final MemorySegment mem, final long seed) {
        for (long i = 0; i < mem.byteSize(); i++) {
            mem.set(ValueLayout.JAVA_BYTE, i, pattern(seed, i));
        }
    }

    static byte pattern(final long seed, final long i) {
        return (byte) ((i * 31 + seed * 7 + (i >>> 11)) & 0xFF);
    }

    static long crc(final MemorySegment mem, final long offset, final long length) {
        final CRC32 c = new CRC32();
        c.update(mem.asSlice(offset, length).asByteBuffer());
        return c.getValue();
    }
}
