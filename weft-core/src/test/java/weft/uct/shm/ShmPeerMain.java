package weft.uct.shm;

import weft.ucs.Status;
import weft.uct.AmHandler;
import weft.uct.AtomicOp;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryAtomics;
import weft.uct.MemoryHandle;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A peer process for the shm tests: opens an shm interface, allocates 1 MiB of shared memory
 * and prints {@code READY <device hex> <iface hex> <rkey hex> <base>}. Then it progresses and
 * obeys commands on stdin: {@code CONNECT <device hex> <iface hex>} (connect back and echo AMs of
 * id 1 as id 2, same kind), {@code ADD64 <offset> <n>} / {@code ADD32 <offset> <n>} (local CPU
 * atomic adds on its memory, then {@code DONE}), {@code EXIT}. Exits when stdin closes.
 */
public final class ShmPeerMain {
    static final int ECHO_REQUEST = 1;
    static final int ECHO_REPLY = 2;
    static final long REGION = 1 << 20;

    private static Endpoint ep;
    private static MemorySegment echoData;
    private static long echoOffset;
    private static long echoLength;

    private ShmPeerMain() {
    }

    public static void main(final String[] args) throws Exception {
        final ConcurrentLinkedQueue<String> commands = new ConcurrentLinkedQueue<>();
        final Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII))) {
                String line;
                while ((line = in.readLine()) != null) {
                    commands.add(line.trim());
                }
            } catch (final java.io.IOException e) {
                System.err.println("peer: stdin: " + e);
            }
            commands.add("EXIT");
        });
        reader.setDaemon(true);
        reader.start();

        final Transport shm = Transports.byName("shm");
        final HexFormat hex = HexFormat.of();
        try (UctWorker worker = new UctWorker()) {
            final Interface iface = shm.openInterface(worker, shm.devices().getFirst(), InterfaceParams.defaults());
            final MemoryHandle mem = shm.memoryDomain().allocate(REGION);
            final MemorySegment region = mem.segment();
            iface.setAmHandler(ECHO_REQUEST, ShmPeerMain::echo);
            System.out.println("READY " + hex.formatHex(iface.deviceAddress()) + " " + hex.formatHex(iface.interfaceAddress())
                + " " + hex.formatHex(shm.memoryDomain().packRkey(mem)) + " " + mem.address());
            System.out.flush();
            while (true) {
                iface.progress();
                final String c = commands.poll();
                if (c == null) {
                    continue;
                }
                final String[] w = c.split(" ");
                switch (w[0]) {
                    case "CONNECT" -> {
                        ep = iface.connect(hex.parseHex(w[1]), hex.parseHex(w[2]));
                        System.out.println("CONNECTED");
                    }
                    case "ADD64" -> {
                        final long off = Long.parseLong(w[1]);
                        for (long i = Long.parseLong(w[2]); i > 0; i--) {
                            MemoryAtomics.fetch64(AtomicOp.ADD, region, off, 1);
                        }
                        System.out.println("DONE");
                    }
                    case "ADD32" -> {
                        final long off = Long.parseLong(w[1]);
                        for (long i = Long.parseLong(w[2]); i > 0; i--) {
                            MemoryAtomics.fetch32(AtomicOp.ADD, region, off, 1);
                        }
                        System.out.println("DONE");
                    }
                    case "EXIT" -> {
                        iface.close();
                        shm.memoryDomain().deregister(mem);
                        System.out.println("BYE");
                        System.out.flush();
                        return;
                    }
                    default -> System.out.println("ERROR unknown command " + c);
                }
                System.out.flush();
            }
        }
    }

    private static final weft.uct.Packer ECHO_PACKER = (dest, off, cap) -> {
        MemorySegment.copy(echoData, echoOffset, dest, off, echoLength);
        return echoLength;
    };

    /** Echoes the message back with the same kind; spins (bounded) while the parent's FIFO is full. */
    private static Status echo(final MemorySegment data, final long offset, final long length, final int flags) {
        if (ep == null) {
            return Status.OK;
        }
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() - deadline < 0) {
            final Status st;
            if ((flags & AmHandler.FLAG_DESC) == 0) {
                st = ep.amShort(ECHO_REPLY, data.get(ValueLayout.JAVA_LONG_UNALIGNED, offset), data, offset + 8,
                    (int) length - 8);
            } else {
                echoData = data;
                echoOffset = offset;
                echoLength = length;
                st = Status.ofLength(ep.amBcopy(ECHO_REPLY, ECHO_PACKER));
            }
            if (st != Status.NO_RESOURCE) {
                return Status.OK;
            }
            Thread.onSpinWait();
        }
        System.err.println("peer: echo timed out");
        return Status.OK;
    }
}
