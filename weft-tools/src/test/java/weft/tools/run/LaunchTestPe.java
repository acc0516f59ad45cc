package weft.tools.run;

import weft.runtime.Runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A PE for the launcher tests. Every mode first writes its pid to {@code PIDDIR/<pid>} so the test
 * can check afterwards that no PE outlived the job.
 * <ul>
 *   <li>{@code exchange PIDDIR}: put/commit/fence/get with every rank, a ring through the
 *       key-value service, a ring of ucp tagged messages, allgather and barrier; prints its place in the job.</li>
 *   <li>{@code fail PIDDIR RANK CODE}: after a fence, RANK exits with CODE; the others sleep.</li>
 *   <li>{@code kill PIDDIR RANK}: after a fence, every PE creates /dev/shm/&lt;job id&gt;-&lt;rank&gt;
 *       (a crashed PE's leftover), then RANK kills itself with SIGKILL; the others sleep.</li>
 *   <li>{@code killfence PIDDIR RANK}: after a fence, RANK kills itself with SIGKILL; the others enter a
 *       fence it never reaches (they fail at WEFT_BOOTSTRAP_TIMEOUT, and their uncaught exception aborts
 *       the job).</li>
 *   <li>{@code stubborn PIDDIR RANK CODE}: never joins the job; starts a child {@code sleep} (a
 *       grandchild of the launcher); RANK exits with CODE, the others sleep.</li>
 *   <li>{@code hold PIDDIR}: joins the job, prints "ready RANK", sleeps (until the launcher goes).</li>
 *   <li>{@code lonely PIDDIR}: rank 0 joins and enters a fence; the others never join and sleep.</li>
 *   <li>{@code sleep PIDDIR}: sleeps (for the timeout test).</li>
 *   <li>{@code affinity PIDDIR}: prints "rank R cpus LIST", LIST its Cpus_allowed_list from /proc/self/status.</li>
 * </ul>
 */
public final class LaunchTestPe {
    private LaunchTestPe() {
    }

    public static void main(final String[] args) throws Exception {
        final String mode = args[0];
        final Path pidDir = Path.of(args[1]);
        final long pid = ProcessHandle.current().pid();
        Files.writeString(pidDir.resolve(Long.toString(pid)), "");
        switch (mode) {
            case "exchange" -> exchange();
            case "fail" -> {
                try (Runtime rt = Runtime.init()) {
                    rt.fence();
                    if (rt.rank() == Integer.parseInt(args[2])) {
                        System.exit(Integer.parseInt(args[3]));
                    }
                    Thread.sleep(60_000);
                }
            }
            case "kill" -> {
                try (Runtime rt = Runtime.init()) {
                    Files.writeString(Path.of("/dev/shm", rt.jobId() + "-" + rt.rank()), "leftover");
                    rt.fence();
                    if (rt.rank() == Integer.parseInt(args[2])) {
                        new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor();
                    }
                    Thread.sleep(60_000);
                }
            }
            case "killfence" -> {
                try (Runtime rt = Runtime.init()) {
                    rt.fence();
                    System.out.println("ready " + rt.rank());
                    System.out.flush();
                    if (rt.rank() == Integer.parseInt(args[2])) {
                        Thread.sleep(500); // the others are in the fence by then
                        new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor();
                        Thread.sleep(60_000);
                    }
                    rt.fence();
                }
            }
            case "stubborn" -> {
                final Process child = new ProcessBuilder("sleep", "60").start();
                Files.writeString(pidDir.resolve(Long.toString(child.pid())), "");
                if (System.getenv("WEFT_RANK").equals(args[2])) {
                    Thread.sleep(300); // let the others start their children too
                    System.exit(Integer.parseInt(args[3]));
                }
                Thread.sleep(60_000);
            }
            case "hold" -> {
                try (Runtime rt = Runtime.init()) {
                    rt.fence();
                    System.out.println("ready " + rt.rank());
                    Thread.sleep(60_000);
                }
            }
            case "lonely" -> {
                if (System.getenv("WEFT_RANK").equals("0")) {
                    try (Runtime rt = Runtime.init()) {
                        rt.fence(); // rank 1 never joins: fails at WEFT_BOOTSTRAP_TIMEOUT
                    }
                }
                Thread.sleep(60_000);
            }
            case "sleep" -> Thread.sleep(60_000);
            case "affinity" -> {
                try (Runtime rt = Runtime.init()) {
                    System.out.println("rank " + rt.rank() + " cpus " + cpusAllowed());
                    rt.barrier();
                }
            }
            default -> throw new IllegalArgumentException(mode);
        }
    }

    /** This process's Cpus_allowed_list, as the kernel reports it. */
    static String cpusAllowed() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Cpus_allowed_list:"))
            .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElseThrow();
    }

    private static void exchange() throws IOException {
        try (Runtime rt = Runtime.init()) {
            final int me = rt.rank();
            final int n = rt.size();
            rt.put("hello", ("from " + me).getBytes(StandardCharsets.UTF_8));
            rt.commit();
            rt.fence();
            for (int r = 0; r < n; r++) {
                check(new String(rt.get(r, "hello"), StandardCharsets.UTF_8).equals("from " + r), "hello of " + r);
            }
            final String ring = ringOverKeyValue(rt);
            check(ring.equals(expectedRing(n)), "ring token '" + ring + "'");
            final String tagRing = ringOverTags(rt);
            check(tagRing.equals(expectedRing(me == 0 ? n : me + 1)), "tag ring token '" + tagRing + "'");
            final byte[] mine = new byte[me + 1]; // a different length per rank
            java.util.Arrays.fill(mine, (byte) me);
            final byte[][] all = rt.allgather(mine);
            for (int r = 0; r < n; r++) {
                check(all[r].length == r + 1 && all[r][r] == r, "allgather slot " + r);
            }
            rt.barrier();
            System.out.println("rank " + me + "/" + n + " local " + rt.localRank() + "/" + rt.localSize() + " node "
                + rt.nodeId() + " bootstrap " + rt.bootstrapName() + " netns "
                + Files.readSymbolicLink(Path.of("/proc/self/ns/net")) + " lanes "
                + ringLanes + " var "
                + System.getenv("WEFT_TEST_VAR") + " ring " + ring);
        }
    }

    /**
     * Passes a token around the ring through the key-value service: rank k appends its rank to what
     * rank k-1 published, one fence per step. HOOK for the protocol layer: when weft.ucp exists,
     * a ring of tagged messages between workers whose addresses came from {@code allgather} goes
     * beside this one (same expected token, see {@link #expectedRing}).
     */
    static String ringOverKeyValue(final Runtime rt) {
        String token = "";
        for (int step = 0; step < rt.size(); step++) {
            if (rt.rank() == step) {
                final String prev = step == 0 ? "" : new String(rt.get(step - 1, "ring"), StandardCharsets.UTF_8);
                token = prev + (step == 0 ? "" : ",") + step;
                rt.put("ring", token.getBytes(StandardCharsets.UTF_8));
                rt.commit();
            }
            rt.fence();
        }
        return new String(rt.get(rt.size() - 1, "ring"), StandardCharsets.UTF_8);
    }

    /**
     * The lanes of the last ring's endpoint to the next rank and the rails of its remote key, without spaces
     * (lane0:a->b[am];...;rma=...;amo=...).
     */
    static String ringLanes = "";

    /**
     * The same token passed around a ring of tagged messages between ucp workers whose addresses came
     * from {@code allgather}: rank k receives from k-1, appends its rank and sends to k+1; rank 0
     * starts and finally receives the whole token (the others return what they forwarded). Then each
     * rank puts into the next rank's heap and checks what its predecessor put.
     */

    static String ringOverTags(final Runtime rt) {
        final int n = rt.size();
        final int me = rt.rank();
        try (weft.ucp.Context ctx = weft.ucp.Context.create(weft.ucp.Feature.TAG, weft.ucp.Feature.RMA);
             weft.ucp.Worker w = ctx.newWorker(); java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined();
             weft.ucp.MemoryMap heap = ctx.memMap(4096, 0)) {
            final byte[][] addrs = rt.allgather(w.address());
            final byte[][] keys = rt.allgather(heap.packRkey());
            final weft.ucp.Endpoint next = w.connect(addrs[(me + 1) % n]);
            ringLanes = String.join(";", next.describe().lines().filter(l -> l.startsWith("lane "))
                .map(l -> l.replace(" ", "")).toList());
            final java.lang.foreign.MemorySegment buf = arena.allocate(4096);
            String token = me == 0 ? "0" : receiveToken(w, buf) + "," + me;
            final byte[] out = token.getBytes(StandardCharsets.UTF_8);
            java.lang.foreign.MemorySegment.copy(java.lang.foreign.MemorySegment.ofArray(out), 0, buf, 0, out.length);
            awaitOk(next.sendTag(77, buf, 0, out.length), "ring send", next);
            // a completed send may still sit in the transport's buffer, and the barrier below does not
            // progress this worker
            awaitOk(next.flush(), "ring flush", next);
            if (me == 0) {
                token = receiveToken(w, buf);
            }
            // one put into the next rank's heap, over the key's rails (to another host: only through the direct
            // link, never through the launcher's namespace), then "done" around the ring by tag, so that every
            // rank progresses until its predecessor's put has landed
            try (weft.ucp.Rkey rk = next.unpackRkey(keys[(me + 1) % n])) {
                ringLanes += ";" + rk.describe().replace(" ", ";");
                buf.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 1000 + me);
                awaitOk(next.put(buf, 0, 8, rk.base(), rk), "put", next);
                awaitOk(next.flush(), "put flush", next);
            }
            awaitOk(next.sendTag(78, buf, 0, 8), "done send", next);
            awaitOk(next.flush(), "done flush", next);
            awaitOk(w.recvTag(buf, 8, 8, 78, -1L), "done receive", next);
            final long landed = heap.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
            check(landed == 1000 + (me + n - 1) % n, "put from the previous rank (" + landed + ")");
            rt.barrier(); // every token delivered before any worker closes
            return token;
        }
    }

    /** Waits for {@code r}, fails with its status and the endpoint's lanes unless OK, and releases it. */
    private static void awaitOk(final weft.ucp.Request r, final String what, final weft.ucp.Endpoint ep) {
        final weft.ucs.Status st = r.awaitStatus();
        check(st == weft.ucs.Status.OK, what + " (" + st + ") over " + ep.describe());
        r.release();
    }

    private static String receiveToken(final weft.ucp.Worker w, final java.lang.foreign.MemorySegment buf) {
        final weft.ucp.TagInfo info = new weft.ucp.TagInfo();
        final weft.ucp.Request r = w.recvTag(buf, 0, buf.byteSize(), 77, -1L, info, null);
        check(r.awaitStatus() == weft.ucs.Status.OK, "ring receive");
        r.release();
        return new String(buf.asSlice(0, info.length()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
            StandardCharsets.UTF_8);
    }

    static String expectedRing(final int n) {
        final StringBuilder sb = new StringBuilder();
        for (int r = 0; r < n; r++) {
            sb.append(r == 0 ? "" : ",").append(r);
        }
        return sb.toString();
    }

    private static void check(final boolean ok, final String what) {
        if (!ok) {
            throw new AssertionError("wrong " + what);
        }
    }
}
