package weft.uct.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import weft.ucs.Status;
import weft.ucs.sys.LibC;
import weft.uct.Capability;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.MemoryAtomics;
import weft.uct.MemoryDomain;
import weft.uct.MemoryDomainAttributes;
import weft.uct.MemoryHandle;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;

/**
 * The child process of a cross-process conformance case (see {@link ProcessPeer}).
 *
 * <p>Usage: {@code ConformancePeer <transport> <device>}. Opens an interface, allocates (or
 * registers) a region of {@link Peer#REGION_LENGTH} bytes and prints
 * {@code READY <device addr hex> <iface addr hex> <rkey hex> <region addr> <region len> <pid>}.
 * Then the main thread progresses the interface and runs the commands that a reader thread takes
 * from stdin ({@code <id> <verb> <args>}, answered by {@code <id> OK ...} or {@code <id> ERR ...}).
 * The process exits when stdin closes, so a dying test leaves no orphan. When idle it sleeps on
 * the interface's event fd (if it has one) or parks briefly, so it never spins a core for long.
 */
public final class ConformancePeer {
    private static final HexFormat HEX = HexFormat.of();
    private static final long IDLE_SPINS = 20_000;
    /** Idle this long, the peer sleeps longer between checks (see {@link #sleep}). */
    private static final long LONG_IDLE_NS = 100_000_000L;

    private final PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
        StandardCharsets.US_ASCII);
    private final ConcurrentLinkedQueue<String> commands = new ConcurrentLinkedQueue<>();
    private final Thread main = Thread.currentThread();
    /** When the current idle stretch passed its spins (System.nanoTime). */
    private long idleSince;
    private final UctWorker worker = new UctWorker();
    private final Interface iface;
    private final MemoryDomain md;
    private final MemoryHandle region;
    private final MemorySegment mem;
    private final EchoAgent echo;
    private final MemorySegment pollFd = Arena.global().allocate(LibC.POLLFD_SIZE, 8);
    private boolean paused;
    private boolean ifaceClosed;
    private volatile boolean running = true;

    private ConformancePeer(final Transport t, final Device d) {
        iface = t.openInterface(worker, d, InterfaceParams.defaults().withErrorHandler((ep, st) ->
            System.err.println("peer: endpoint error " + st)));
        md = t.memoryDomain();
        region = md.attributes().has(MemoryDomainAttributes.ALLOC) ? md.allocate(Peer.REGION_LENGTH)
            : md.register(Arena.global().allocate(Peer.REGION_LENGTH, 4096));
        mem = region.segment();
        echo = new EchoAgent(iface);
    }

    public static void main(final String[] args) {
        final Transport t = Transports.byName(args[0]);
        Device dev = null;
        for (final Device d : t.devices()) {
            if (d.name().equals(args[1])) {
                dev = d;
            }
        }
        if (dev == null) {
            System.out.println("FAILED no device " + args[1] + " in " + t.devices());
            System.exit(2);
        }
        final ConformancePeer p = new ConformancePeer(t, dev);
        p.run();
    }

    private void run() {
        reply("READY " + HEX.formatHex(iface.deviceAddress()) + " " + HEX.formatHex(iface.interfaceAddress()) + " "
            + HEX.formatHex(md.packRkey(region)) + " " + region.address() + " " + Peer.REGION_LENGTH + " "
            + ProcessHandle.current().pid());
        final Thread reader = Thread.ofPlatform().daemon().name("peer-stdin").start(this::readStdin);
        long idle = 0;
        while (running) {
            int work = 0;
            final String cmd = commands.poll();
            if (cmd != null) {
                execute(cmd);
                work++;
            }
            if (!paused && !ifaceClosed) {
                work += worker.progress() + echo.pump();
            }
            if (work > 0) {
                idle = 0;
            } else if (++idle > IDLE_SPINS) {
                if (idle == IDLE_SPINS + 1) {
                    idleSince = System.nanoTime();
                }
                sleep(System.nanoTime() - idleSince > LONG_IDLE_NS);
            } else {
                Thread.onSpinWait();
            }
        }
        if (!ifaceClosed) {
            echo.close();
        }
        worker.close();
        md.deregister(region);
        out.flush();
        reader.interrupt();
        System.exit(0);
    }

    /**
     * Idle: wait on the event fd if the interface can be armed (traffic wakes it), else park (a command
     * unparks it): 1 ms or 200 us at a time, and 5 ms or 2 ms once idle for {@link #LONG_IDLE_NS}, so that a
     * peer left alone for seconds wakes a few hundred times a second rather than thousands (on a slow machine
     * those wakeups alone took 10-16 % of a core).
     */
    private void sleep(final boolean longIdle) {
        if (!paused && !ifaceClosed && iface.attributes().has(Capability.EVENT_RECV) && iface.eventFd() >= 0
            && iface.arm() == Status.OK) {
            pollFd.set(ValueLayout.JAVA_INT, 0, iface.eventFd());
            pollFd.set(ValueLayout.JAVA_SHORT, 4, (short) LibC.POLLIN);
            pollFd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
            LibC.poll(pollFd.address(), 1, longIdle ? 5 : 1);
        } else {
            LockSupport.parkNanos(longIdle ? 2_000_000 : 200_000);
        }
    }

    private void readStdin() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                commands.add(line);
                LockSupport.unpark(main);
            }
        } catch (final java.io.IOException e) {
            System.err.println("peer: stdin failed: " + e);
        }
        commands.add("0 exit"); // stdin closed: the test is gone, do not outlive it
        LockSupport.unpark(main);
    }

    private synchronized void reply(final String line) {
        out.println(line);
        out.flush();
    }

    private void execute(final String line) {
        final String[] a = line.split(" ");
        final String id = a[0];
        try {
            final String r = switch (a[1]) {
                case "connect" -> {
                    echo.connect(iface.connect(HEX.parseHex(a[2]), HEX.parseHex(a[3])));
                    yield "";
                }
                case "disconnect" -> {
                    if (!ifaceClosed) {
                        echo.disconnect();
                    }
                    paused = false; // end of a case: the next one starts with a progressing peer
                    yield "";
                }
                case "pause" -> {
                    paused = true;
                    yield "";
                }
                case "resume" -> {
                    paused = false;
                    yield "";
                }
                case "read" -> HEX.formatHex(mem.asSlice(Long.parseLong(a[2]), Integer.parseInt(a[3]))
                    .toArray(ValueLayout.JAVA_BYTE));
                case "write" -> {
                    final byte[] b = a.length > 3 ? HEX.parseHex(a[3]) : new byte[0];
                    MemorySegment.copy(b, 0, mem, ValueLayout.JAVA_BYTE, Long.parseLong(a[2]), b.length);
                    yield "";
                }
                case "fill" -> {
                    mem.asSlice(Long.parseLong(a[2]), Long.parseLong(a[3])).fill(Byte.parseByte(a[4]));
                    yield "";
                }
                case "word" -> Long.toString(MemoryAtomics.getAcquire64(mem, Long.parseLong(a[2])));
                case "add" -> {
                    async(id, () -> {
                        PeerOps.localAdd(mem, Long.parseLong(a[2]), Integer.parseInt(a[3]), Long.parseLong(a[4]),
                            Integer.parseInt(a[5]));
                        return "OK";
                    });
                    yield null;
                }
                case "watch" -> {
                    async(id, () -> PeerOps.watch(mem, Long.parseLong(a[2]), Integer.parseInt(a[3]),
                        Long.parseLong(a[4]), Long.parseLong(a[5]), Long.parseLong(a[6])));
                    yield null;
                }
                case "stats" -> echo.received() + " " + echo.echoed() + " " + echo.error();
                case "closeiface" -> {
                    echo.close();
                    worker.close();
                    ifaceClosed = true;
                    yield "";
                }
                case "exit" -> {
                    running = false;
                    yield "";
                }
                default -> throw new IllegalArgumentException("unknown command " + a[1]);
            };
            if (r != null) {
                reply(id + " OK " + r);
            }
        } catch (final RuntimeException e) {
            reply(id + " ERR " + e.toString().replace('\n', ' '));
        }
    }

    /** Runs a memory-only task on its own thread (never touches the interface) and replies when done. */
    private void async(final String id, final java.util.concurrent.Callable<String> body) {
        Thread.ofPlatform().daemon().name("peer-task-" + id).start(() -> {
            try {
                reply(id + " OK " + body.call());
            } catch (final Exception e) {
                reply(id + " ERR " + e);
            }
        });
    }
}
