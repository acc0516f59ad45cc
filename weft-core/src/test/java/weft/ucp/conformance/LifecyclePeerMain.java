package weft.ucp.conformance;

import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.Listener;
import weft.ucp.Request;
import weft.ucp.Worker;
import weft.ucs.config.Config;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A peer process for lifecycle and error tests, meant to be killed: prints {@code PID <n>}, then
 * <ul>
 *   <li>{@code address <tls>}: prints {@code ADDR <hex>}, reads the parent's {@code ADDR <hex>} from stdin,
 *   connects, and echoes: each message on tag 1 comes back on tag 2; with a third argument
 *   {@code map=<bytes>} (allocated) or {@code reg=<bytes>} (registered off-heap memory) it also maps that
 *   much memory, fills it with 64-bit words {@code i * 0x9E3779B97F4A7C15} (i = byte offset) and prints
 *   {@code RKEY <hex>} before {@code READY};</li>
 *   <li>{@code listen <tls> <secret> accept|reject}: listens on loopback, prints {@code PORT <n>}, accepts
 *   (and echoes as above on the accepted endpoint) or rejects every request.</li>
 * </ul>
 * It prints {@code READY} when serving, runs until killed, and halts when stdin closes (parent gone).
 * The line {@code STOP} on stdin makes it stop progressing (alive but deaf: its senders back up);
 * {@code CLOSEWORKER} closes its worker (printing {@code WORKERCLOSED}). When its endpoint fails it prints
 * {@code EPFAILED <status>}.
 */
public final class LifecyclePeerMain {
    private static volatile boolean stopped;
    private static volatile boolean closeWorker;
    private static volatile boolean closeEp;

    private LifecyclePeerMain() {
    }

    public static void main(final String[] args) throws Exception {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("PID " + ProcessHandle.current().pid());
        Config cfg = Config.global();
        if (args[0].equals("listen")) {
            cfg = cfg.with("JOB_SECRET", args[2]);
        }
        try (Context ctx = Context.builder().features(Feature.values()).transports(args[1].split(",")).config(cfg)
                 .build();
             Worker w = ctx.newWorker();
             Arena arena = Arena.ofConfined()) {
            final List<Endpoint> eps = new ArrayList<>();
            Listener listener = null;
            weft.ucp.MemoryMap heap = null;
            if (args[0].equals("address")) {
                out.println("ADDR " + HexFormat.of().formatHex(w.address()));
                final String line = in.readLine();
                if (line == null || !line.startsWith("ADDR ")) {
                    throw new IllegalStateException("no address from the parent: " + line);
                }
                eps.add(w.connect(HexFormat.of().parseHex(line.substring(5).trim()))
                    .onError((e, st) -> out.println("EPFAILED " + st)));
                if (args.length > 2) {
                    final long n = Long.parseLong(args[2].substring(4));
                    heap = args[2].startsWith("reg=") ? ctx.memMap(arena.allocate(n, 4096), 0) : ctx.memMap(n, 0);
                    final MemorySegment m = heap.segment();
                    for (long i = 0; i + 8 <= n; i += 8) {
                        m.set(java.lang.foreign.ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
                    }
                    out.println("RKEY " + HexFormat.of().formatHex(heap.packRkey()));
                }
            } else {
                final boolean accept = args[3].equals("accept");
                listener = w.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), r -> {
                    if (accept) {
                        eps.add(r.accept());
                    } else {
                        r.reject();
                    }
                });
                out.println("PORT " + listener.address().getPort());
            }
            Thread.ofPlatform().daemon().start(() -> { // parent gone (stdin EOF) -> exit
                try {
                    String cmd;
                    while ((cmd = in.readLine()) != null) {
                        if (cmd.equals("STOP")) {
                            stopped = true;
                        } else if (cmd.equals("CLOSEWORKER")) {
                            closeWorker = true;
                        } else if (cmd.equals("CLOSEEP")) {
                            closeEp = true;
                        }
                    }
                } catch (final java.io.IOException e) {
                    System.err.println("stdin: " + e);
                }
                Runtime.getRuntime().halt(3);
            });
            out.println("READY");
            final MemorySegment buf = arena.allocate(1 << 16);
            Request r = w.recvTag(buf, 0, buf.byteSize(), 1, -1L);
            while (true) {
                if (closeWorker) {
                    w.close();
                    out.println("WORKERCLOSED");
                    closeWorker = false;
                    stopped = true;
                }
                if (closeEp) {
                    // force: no progress, so messages already in our queues stay unread
                    eps.remove(eps.size() - 1).closeNonBlocking(weft.ucp.CloseMode.FORCE).release();
                    out.println("EPCLOSED");
                    closeEp = false;
                }
                if (stopped) {
                    Thread.sleep(10);
                    continue;
                }
                w.progress();
                if (r.isCompleted()) {
                    final long n = Math.min(r.length(), buf.byteSize());
                    r.release();
                    if (!eps.isEmpty()) {
                        final Request s = eps.get(eps.size() - 1).sendTag(2, buf, 0, n);
                        while (!s.isCompleted()) {
                            w.progress();
                        }
                        s.release();
                    }
                    r = w.recvTag(buf, 0, buf.byteSize(), 1, -1L);
                }
                if (listener == null && eps.isEmpty()) {
                    break;
                }
            }
        }
    }
}
