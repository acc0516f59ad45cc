package weft.uct.tcp;

import weft.ucs.Status;
import weft.uct.Device;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryHandle;
import weft.uct.UctWorker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/**
 * A tcp peer in its own JVM, for tests: opens a tcp interface on lo, allocates 1 MiB of memory
 * (byte i = i * 7), prints {@code ADDR <device hex> <iface hex> <rkey hex> <base>} and then
 * serves remote memory from its progress loop. On {@code CONNECT <device hex> <iface hex>} from
 * stdin it connects back and echoes every AM of id 1 as an AM of id 2 (short: same header and
 * payload). Exits when stdin closes, or after 120 s in any case.
 */
public final class TcpPeerMain {
    private static volatile String command;
    private static volatile boolean stdinClosed;
    private static Endpoint back;

    private TcpPeerMain() {
    }

    public static void main(final String[] args) throws Exception {
        final long deadline = System.nanoTime() + 120_000_000_000L;
        final TcpTransport t = new TcpTransport();
        try (UctWorker w = new UctWorker()) {
            final Interface iface = t.openInterface(w, new Device("tcp", "lo", Device.Type.NET),
                InterfaceParams.defaults());
            final MemoryHandle mem = t.memoryDomain().allocate(1 << 20);
            for (int i = 0; i < (1 << 20); i++) {
                mem.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            iface.setAmHandler(1, (data, off, len, flags) -> {
                if (back != null) {
                    final long hdr = data.get(TcpFrame.I64, off);
                    Status st;
                    while ((st = back.amShort(2, hdr, data, off + 8, (int) len - 8)) == Status.NO_RESOURCE) {
                        iface.progress();
                    }
                }
                return Status.OK;
            });
            final HexFormat hex = HexFormat.of();
            System.out.println("ADDR " + hex.formatHex(iface.deviceAddress()) + " "
                + hex.formatHex(iface.interfaceAddress()) + " " + hex.formatHex(t.memoryDomain().packRkey(mem))
                + " " + mem.address());
            System.out.flush();
            final Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        command = line;
                    }
                } catch (final java.io.IOException e) {
                    // stdin gone: same as closed
                }
                stdinClosed = true;
            });
            reader.setDaemon(true);
            reader.start();
            final MemorySegment pfd = java.lang.foreign.Arena.global().allocate(8, 8);
            pfd.set(ValueLayout.JAVA_INT, 0, iface.eventFd());
            pfd.set(ValueLayout.JAVA_SHORT, 4, (short) weft.ucs.sys.LibC.POLLIN);
            long idle = 0;
            while (!stdinClosed && System.nanoTime() < deadline) {
                idle = iface.progress() == 0 ? idle + 1 : 0;
                if (idle > 200_000 && iface.arm() == Status.OK) {
                    weft.ucs.sys.LibC.poll(pfd.address(), 1, 10); // idle: sleep on the event fd
                    idle = 0;
                }
                final String c = command;
                if (c != null) {
                    command = null;
                    final String[] p = c.split(" ");
                    if (p[0].equals("CONNECT")) {
                        back = iface.connect(hex.parseHex(p[1]), hex.parseHex(p[2]));
                        System.out.println("CONNECTED");
                        System.out.flush();
                    }
                }
            }
        }
    }
}
