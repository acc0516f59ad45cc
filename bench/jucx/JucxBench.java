import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpListener;
import org.openucx.jucx.ucp.UcpListenerParams;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicReference;

/**
 * JUCX's latency and read-bandwidth scenarios, written against JUCX's public API only, so the same source
 * runs on real JUCX (its jar and native UCX) and on Weft's weft-jucx: run it from source with either on the
 * class path.
 *
 * <pre>
 *   java -cp JAR JucxBench server PORT lat|bw|bwalloc SIZE ITERS [sock|addr]         (start first)
 *   java -cp JAR JucxBench client HOST PORT lat|bw|bwalloc SIZE ITERS [sock|addr]
 * </pre>
 *
 * sock (default): the client connects to the server's {@code UcpListener}, as JUCX's own benchmarks do.
 * addr: the two swap worker addresses over a plain socket and connect by address ({@code setUcpAddress}):
 * native UCX then chooses its shared-memory transports on one node (its socket-address endpoints stay on
 * tcp there). No endpoint asks for peer error handling: UCX 1.13's shared-memory transports have no peer
 * failure handler and would be left out (Weft detects failures either way).
 *
 * lat: tag ping-pong of SIZE bytes (the client prints the one-way latency and the bytes it allocated per
 * round trip). bw: JUCX's read-bandwidth test: the server registers SIZE bytes and sends its address and
 * remote key; the client gets them ITERS times and prints MB/s. bwalloc: the same on memory the server has UCX
 * allocate ({@code memoryMap} with {@code allocate()}), as JUCX's own read-bandwidth benchmark does: UCX 1.13
 * emulates the gets of either kind on one node with active messages over its shared-memory transport (its
 * rma lanes reach neither); Weft reads registered user memory with cma and maps allocated memory directly. The client prints one line:
 * {@code RESULT impl=... test=... size=... value=... unit=... alloc_per_op=...}.
 */
public final class JucxBench {
    private static final long TAG_PING = 1;
    private static final long TAG_PONG = 2;
    private static final long TAG_KEY = 3;
    private static final long TAG_DONE = 4;

    private JucxBench() {
    }

    public static void main(final String[] args) throws Exception {
        final boolean server = args[0].equals("server");
        final int a = server ? 1 : 2;
        final String host = server ? null : args[1];
        final int port = Integer.parseInt(args[a]);
        final String test = args[a + 1];
        final int size = Integer.parseInt(args[a + 2]);
        final int iters = Integer.parseInt(args[a + 3]);
        final boolean byAddress = args.length > a + 4 && args[a + 4].equals("addr");
        final String impl = UcpContext.class.getProtectionDomain().getCodeSource().getLocation().getPath()
            .contains("weft") ? "weft" : "jucx";
        try (UcpContext ctx = new UcpContext(new UcpParams().requestTagFeature().requestRmaFeature());
             UcpWorker w = ctx.newWorker(new UcpWorkerParams())) {
            final UcpEndpoint ep;
            UcpListener listener = null;
            if (byAddress) {
                final byte[] peer = swapAddresses(server, host, port, w.getAddress());
                final ByteBuffer pa = ByteBuffer.allocateDirect(peer.length);
                pa.put(peer).flip();
                ep = w.newEndpoint(new UcpEndpointParams().setUcpAddress(pa));
            } else if (server) {
                final AtomicReference<UcpEndpoint> accepted = new AtomicReference<>();
                listener = w.newListener(new UcpListenerParams().setSockAddr(new InetSocketAddress("0.0.0.0", port))
                    .setConnectionHandler(req -> accepted.set(w.newEndpoint(new UcpEndpointParams()
                        .setConnectionRequest(req)))));
                while (accepted.get() == null) {
                    w.progress();
                }
                ep = accepted.get();
            } else {
                ep = w.newEndpoint(new UcpEndpointParams().setSocketAddress(new InetSocketAddress(host, port)));
            }
            final ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(size, 64));
            final long addr = UcxUtils.getAddress(buf);
            if (test.equals("lat")) {
                latency(w, ep, server, addr, size, iters, impl);
            } else {
                bandwidth(ctx, w, ep, server, buf, size, iters, impl, test);
            }
            if (listener != null) {
                listener.close();
            }
            final UcpRequest close = ep.closeNonBlockingFlush();
            final long deadline = System.nanoTime() + 5_000_000_000L; // the peer may have closed first
            while (!close.isCompleted() && System.nanoTime() < deadline) {
                w.progress();
            }
        }
    }

    /** Swaps worker addresses over a plain TCP socket (length, bytes). */
    private static byte[] swapAddresses(final boolean server, final String host, final int port, final ByteBuffer mine)
        throws Exception {
        final byte[] out = new byte[mine.remaining()];
        mine.duplicate().get(out);
        if (server) {
            try (java.net.ServerSocket ss = new java.net.ServerSocket(port); java.net.Socket s = ss.accept()) {
                return swap(s, out);
            }
        }
        try (java.net.Socket s = new java.net.Socket(host, port)) {
            return swap(s, out);
        }
    }

    private static byte[] swap(final java.net.Socket s, final byte[] out) throws Exception {
        final java.io.DataOutputStream o = new java.io.DataOutputStream(s.getOutputStream());
        o.writeInt(out.length);
        o.write(out);
        o.flush();
        final java.io.DataInputStream i = new java.io.DataInputStream(s.getInputStream());
        final byte[] in = new byte[i.readInt()];
        i.readFully(in);
        return in;
    }

    private static void await(final UcpWorker w, final UcpRequest r) throws Exception {
        while (!r.isCompleted()) {
            w.progress();
        }
        if (r.getStatus() != 0) {
            throw new IllegalStateException("request failed: status " + r.getStatus());
        }
    }

    private static void latency(final UcpWorker w, final UcpEndpoint ep, final boolean server, final long addr,
                                final int size, final int iters, final String impl) throws Exception {
        final int warm = Math.max(1000, iters / 10);
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long tid = Thread.currentThread().threadId();
        long t0 = 0;
        long a0 = 0;
        for (int i = 0; i < warm + iters; i++) {
            if (i == warm) {
                a0 = mx.getThreadAllocatedBytes(tid);
                t0 = System.nanoTime();
            }
            if (server) {
                await(w, w.recvTaggedNonBlocking(addr, size, TAG_PING, -1L, null));
                await(w, ep.sendTaggedNonBlocking(addr, size, TAG_PONG, null));
            } else {
                final UcpRequest r = w.recvTaggedNonBlocking(addr, size, TAG_PONG, -1L, null);
                await(w, ep.sendTaggedNonBlocking(addr, size, TAG_PING, null));
                await(w, r);
            }
        }
        final long ns = System.nanoTime() - t0;
        final long bytes = mx.getThreadAllocatedBytes(tid) - a0;
        if (!server) {
            System.out.printf("RESULT impl=%s test=tag_lat size=%d value=%.3f unit=usec_one_way alloc_per_op=%.1f%n",
                impl, size, ns / 1000.0 / iters / 2, (double) bytes / iters);
        }
    }

    private static void bandwidth(final UcpContext ctx, final UcpWorker w, final UcpEndpoint ep, final boolean server,
                                  final ByteBuffer buf, final int size, final int iters, final String impl,
                                  final String test)
        throws Exception {
        final ByteBuffer msg = ByteBuffer.allocateDirect(4096).order(ByteOrder.nativeOrder());
        final long msgAddr = UcxUtils.getAddress(msg);
        if (server) {
            // bw: the caller's buffer, registered; bwalloc: memory UCX allocates (memoryMap with allocate()), as
            // JUCX's own read-bandwidth benchmark (UcxReadBWBenchmarkSender) does
            final UcpMemory mem = test.equals("bwalloc")
                ? ctx.memoryMap(new UcpMemMapParams().allocate().setLength(size)) : ctx.registerMemory(buf);
            final ByteBuffer key = mem.getRemoteKeyBuffer();
            msg.putLong(0, mem.getAddress()).putInt(8, key.remaining());
            msg.position(12);
            msg.put(key.duplicate());
            msg.position(0);
            await(w, ep.sendTaggedNonBlocking(msgAddr, 12 + key.remaining(), TAG_KEY, null));
            await(w, w.recvTaggedNonBlocking(msgAddr, 8, TAG_DONE, -1L, null)); // progresses the gets (tcp)
            mem.deregister();
            return;
        }
        await(w, w.recvTaggedNonBlocking(msgAddr, 4096, TAG_KEY, -1L, null));
        final long remote = msg.getLong(0);
        final int klen = msg.getInt(8);
        final ByteBuffer key = ByteBuffer.allocateDirect(klen);
        msg.position(12).limit(12 + klen);
        key.put(msg).flip();
        final UcpRemoteKey rk = ep.unpackRemoteKey(key);
        final long local = UcxUtils.getAddress(buf);
        // warm-up: ITERS/10 gets and at least 2 s, so that the JIT has compiled Weft's get path before the
        // measured loop (on a loaded machine the compiler threads share the pinned core)
        final long warmEnd = System.nanoTime() + 2_000_000_000L;
        for (int i = 0; i < Math.max(10, iters / 10) || System.nanoTime() < warmEnd; i++) {
            await(w, ep.getNonBlocking(remote, rk, local, size, null));
        }
        final long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            await(w, ep.getNonBlocking(remote, rk, local, size, null));
        }
        final long ns = System.nanoTime() - t0;
        System.out.printf("RESULT impl=%s test=%s size=%d value=%.1f unit=MB/s alloc_per_op=-%n", impl,
            test.equals("bwalloc") ? "read_bw_alloc" : "read_bw", size,
            (double) size * iters / (ns / 1e9) / 1e6);
        rk.close();
        msg.clear();
        await(w, ep.sendTaggedNonBlocking(msgAddr, 8, TAG_DONE, null));
    }
}
