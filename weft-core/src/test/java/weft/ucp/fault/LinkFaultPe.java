package weft.ucp.fault;

import weft.ucp.Context;
import weft.ucp.Endpoint;
import weft.ucp.Feature;
import weft.ucp.MemoryMap;
import weft.ucp.Request;
import weft.ucp.Rkey;
import weft.ucp.Worker;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.uct.AtomicOp;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * One PE of {@link TcpLinkFaultTest}, run in its own network namespace over tcp: prints
 * {@code ADDR <hex>}, reads the peer's, then rank 0 streams to rank 1 for {@code seconds}: numbered
 * tagged messages (eager, up to 64 KiB), one 256 MiB rendezvous in the middle, puts with a fence
 * before a "last written" word, and a fetch-add per message (each result must be its index: a
 * fetch-add applied twice or lost shows). Rank 1 checks every byte and the final memory. Prints
 * {@code STREAMING} when the stream starts (the parent then cuts the link), and at the end
 * {@code RESULT OK <messages>}, {@code RESULT ERROR <status>} (exit 2: an operation failed, as
 * after a cut longer than {@code WEFT_FAULT_TIMEOUT}) or {@code RESULT FAIL <what>} (exit 1).
 * Exits when stdin closes (the parent died).
 */
public final class LinkFaultPe {
    private static final long MSG_BIT = 1L << 40;
    private static final long RKEY_TAG = 1;
    private static final long BIG_TAG = 2;
    private static final long DONE_TAG = 3;
    private static final long BIG = 256L << 20;
    private static final int SLOTS = 1024;
    private static final long LAST = 8;
    private static final long SLOT0 = 64;

    private LinkFaultPe() {
    }

    public static void main(final String[] args) throws Exception {
        final int rank = Integer.parseInt(args[0]);
        final long seconds = Long.parseLong(args[1]);
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int exit;
        try (Context ctx = Context.create(Feature.TAG, Feature.RMA); Worker w = ctx.newWorker()) {
            out.println("ADDR " + HexFormat.of().formatHex(w.address()));
            final String line = in.readLine();
            if (line == null || !line.startsWith("ADDR ")) {
                throw new IllegalStateException("no peer address: " + line);
            }
            weft.testkit.StdinWatch.haltWhenClosed(in); // parent gone (stdin EOF) -> exit
            final Endpoint ep = w.connect(HexFormat.of().parseHex(line.substring(5).trim()));
            final long n = rank == 0 ? sender(ctx, w, ep, seconds, out) : receiver(ctx, w, ep, out);
            out.println("RESULT OK " + n);
            exit = 0;
        } catch (final WeftException e) {
            out.println("RESULT ERROR " + e.status() + " " + e.getMessage());
            exit = 2;
        } catch (final Throwable t) {
            out.println("RESULT FAIL " + t);
            t.printStackTrace();
            exit = 1;
        }
        out.flush();
        System.exit(exit);
    }

    private static byte pattern(final long seq, final long i) {
        return (byte) (seq * 29 + i * 3 + (i >> 9));
    }

    private static long length(final long seq) {
        return seq % 7 == 0 ? 16384 + seq * 97 % 49152 : seq * 13 % 2000;
    }

    /** Waits for {@code r}, progressing; an endpoint failure throws (a posted receive alone would wait on). */
    private static void await(final Worker w, final Endpoint ep, final Request r, final String what) {
        while (!r.isCompleted()) {
            w.progress();
            if (ep.status() != Status.OK && !r.isCompleted()) {
                throw new WeftException(ep.status(), what + ": the endpoint failed: " + ep.status());
            }
        }
        final Status st = r.status();
        r.release();
        if (st != Status.OK) {
            throw new WeftException(st, what + ": " + st);
        }
    }

    private static long sender(final Context ctx, final Worker w, final Endpoint ep, final long seconds,
                               final PrintStream out) {
        final Arena arena = Arena.ofShared();
        final MemorySegment rk = arena.allocate(4096);
        final Request kr = w.recvTag(rk, 0, rk.byteSize(), RKEY_TAG, -1);
        while (!kr.isCompleted()) {
            w.progress();
        }
        final long klen = kr.length();
        await(w, ep, kr, "remote key");
        final byte[] packed = rk.asSlice(0, klen).toArray(ValueLayout.JAVA_BYTE);
        final Rkey key = ep.unpackRkey(packed);
        final long base = key.base();
        final MemorySegment big = arena.allocate(BIG, 4096);
        for (long i = 0; i < BIG; i += 8) {
            big.set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
        }
        final MemorySegment msg = arena.allocate(65536, 8);
        final MemorySegment res = arena.allocate(8, 8);
        final MemorySegment word = arena.allocate(8, 8);
        out.println("STREAMING");
        final long start = System.nanoTime();
        boolean bigSent = false;
        long seq = 0;
        while (System.nanoTime() - start < seconds * 1_000_000_000L || !bigSent) {
            final long len = length(seq);
            for (long i = 0; i < len; i++) {
                msg.set(ValueLayout.JAVA_BYTE, i, pattern(seq, i));
            }
            await(w, ep, ep.sendTag(MSG_BIT | seq, msg, 0, len), "message " + seq);
            word.set(ValueLayout.JAVA_LONG, 0, seq);
            check(ep.putNbi(word, 0, 8, base + SLOT0 + 8 * (seq % SLOTS), key), "put " + seq);
            w.fence(); // the slot lands before the "last written" word that names it
            check(ep.putNbi(word, 0, 8, base + LAST, key), "put last " + seq);
            final Request f = ep.atomicFetch(AtomicOp.ADD, 1, res, 0, base, key);
            await(w, ep, f, "fetch-add " + seq);
            if (res.get(ValueLayout.JAVA_LONG, 0) != seq) {
                throw new AssertionError("fetch-add " + seq + " returned " + res.get(ValueLayout.JAVA_LONG, 0)
                    + ": an add was lost or applied twice");
            }
            seq++;
            if (!bigSent && System.nanoTime() - start > seconds * 400_000_000L) {
                await(w, ep, ep.sendTag(BIG_TAG, big, 0, BIG), "256 MiB rendezvous");
                bigSent = true;
            }
        }
        await(w, ep, ep.flush(), "flush");
        word.set(ValueLayout.JAVA_LONG, 0, seq);
        await(w, ep, ep.sendTag(DONE_TAG, word, 0, 8), "done");
        return seq;
    }

    private static long receiver(final Context ctx, final Worker w, final Endpoint ep, final PrintStream out) {
        final Arena arena = Arena.ofShared();
        final MemoryMap map = ctx.memMap(SLOT0 + 8L * SLOTS, 0);
        final MemorySegment mem = map.segment();
        final byte[] packed = map.packRkey();
        final MemorySegment k = arena.allocate(packed.length);
        MemorySegment.copy(packed, 0, k, ValueLayout.JAVA_BYTE, 0, packed.length);
        final MemorySegment big = arena.allocate(BIG, 4096);
        final Request bigReq = w.recvTag(big, 0, BIG, BIG_TAG, -1);
        final MemorySegment done = arena.allocate(8, 8);
        final Request doneReq = w.recvTag(done, 0, 8, DONE_TAG, -1);
        await(w, ep, ep.sendTag(RKEY_TAG, k, 0, packed.length), "remote key");
        final MemorySegment msg = arena.allocate(65536, 8);
        long seq = 0;
        while (true) {
            final Request r = w.recvTag(msg, 0, msg.byteSize(), MSG_BIT, MSG_BIT);
            while (!r.isCompleted() && !doneReq.isCompleted()) {
                w.progress();
                if (ep.status() != Status.OK) {
                    throw new WeftException(ep.status(), "message " + seq + ": the endpoint failed");
                }
            }
            if (!r.isCompleted()) {
                w.cancel(r);
                while (!r.isCompleted()) {
                    w.progress();
                }
                r.release();
                break; // every message came before DONE (one ordered stream)
            }
            if (r.status() != Status.OK) {
                throw new WeftException(r.status(), "message " + seq);
            }
            final long tag = r.senderTag() & ~MSG_BIT;
            final long len = r.length();
            r.release();
            if (tag != seq) {
                throw new AssertionError("message " + tag + " arrived when " + seq + " was due");
            }
            if (len != length(seq)) {
                throw new AssertionError("message " + seq + " has " + len + " bytes");
            }
            for (long i = 0; i < len; i++) {
                if (msg.get(ValueLayout.JAVA_BYTE, i) != pattern(seq, i)) {
                    throw new AssertionError("message " + seq + " differs at byte " + i);
                }
            }
            seq++;
        }
        await(w, ep, doneReq, "done");
        await(w, ep, bigReq, "256 MiB rendezvous");
        final long count = done.get(ValueLayout.JAVA_LONG, 0);
        if (count != seq) {
            throw new AssertionError(seq + " messages arrived, " + count + " were sent");
        }
        for (long i = 0; i < BIG; i += 8) {
            if (big.get(ValueLayout.JAVA_LONG, i) != i * 0x9E3779B97F4A7C15L) {
                throw new AssertionError("the 256 MiB message differs at byte " + i);
            }
        }
        if (mem.get(ValueLayout.JAVA_LONG, 0) != count) {
            throw new AssertionError("the fetch-add counter is " + mem.get(ValueLayout.JAVA_LONG, 0) + ", not " + count);
        }
        if (mem.get(ValueLayout.JAVA_LONG, LAST) != count - 1) {
            throw new AssertionError("the last put wrote " + mem.get(ValueLayout.JAVA_LONG, LAST));
        }
        for (long s = Math.max(0, count - SLOTS); s < count; s++) {
            if (mem.get(ValueLayout.JAVA_LONG, SLOT0 + 8 * (s % SLOTS)) != s) {
                throw new AssertionError("put slot " + s % SLOTS + " holds " + mem.get(ValueLayout.JAVA_LONG,
                    SLOT0 + 8 * (s % SLOTS)) + ", not " + s);
            }
        }
        map.close();
        return seq;
    }

    private static void check(final Status st, final String what) {
        if (st.isError()) {
            throw new WeftException(st, what + ": " + st);
        }
    }
}
