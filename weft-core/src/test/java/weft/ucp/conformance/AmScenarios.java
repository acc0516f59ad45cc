package weft.ucp.conformance;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucp.AmFlags;
import weft.ucp.AmMessage;
import weft.ucp.AmRecvHandler;
import weft.ucp.Endpoint;
import weft.ucp.Request;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Active-message scenarios; each is run by {@link AmConformanceTest} over every transport set and mode. */
public final class AmScenarios {
    private static final int ID = 5;
    private static final int PING = 6;
    private static final int PONG = 7;

    private AmScenarios() {
    }

    /** Progresses until {@code cond} holds, failing after {@link Pe#WAIT_SECONDS}. */
    static void until(final Pe pe, final java.util.function.BooleanSupplier cond, final String what) {
        final long deadline = System.nanoTime() + (long) (Pe.WAIT_SECONDS * 1e9);
        while (!cond.getAsBoolean()) {
            if (pe.worker().progress() == 0 && System.nanoTime() > deadline) {
                throw new AssertionError("PE " + pe.rank() + ": " + what + " did not happen in " + Pe.WAIT_SECONDS + " s");
            }
        }
    }

    private static void send(final Pe pe, final int id, final MemorySegment h, final long hLen, final MemorySegment d,
                             final long n, final int flags, final Status want, final String what) {
        final Request q = pe.ep().sendAm(id, h, 0, hLen, d, 0, n, flags);
        assertEquals(want, pe.await(q), what);
        q.release();
    }

    /**
     * Sizes around every threshold (short, single bcopy, fragments, rendezvous), with and without a
     * header, both directions; forced eager above and forced rendezvous below the threshold; rendezvous
     * data received into a user buffer inside the handler.
     */
    public static final class Sizes implements Scenario {
        /** One message of the sequence: both PEs build the same list. */
        private record Case(long size, long header, int flags, int seed, String what) {
        }

        private final List<Case> cases = new ArrayList<>();
        private final List<Request> pulls = new ArrayList<>();
        private final List<MemorySegment> pulled = new ArrayList<>();
        private int next;

        @Override
        public void run(final Pe pe) {
            final Endpoint ep = pe.ep();
            final long s = ep.maxShort();
            final long r = ep.rendezvousThreshold();
            final long[] sizes = {0, 1, 8, s - 1, s, s + 1, 8000, 8192, 8193, 3 * 8192 + 5, r - 1, r, r + 1, 1 << 20};
            final long[] headers = {0, 5, 300};
            final int[] flagSets = {0, AmFlags.SEND_EAGER, AmFlags.SEND_RNDV};
            int seed = 1;
            for (final int flags : flagSets) {
                for (final long hl : headers) {
                    for (final long n : sizes) {
                        if (n >= 0 && n <= 1 << 20 && (flags == 0 || hl == 5)) {
                            cases.add(new Case(n, hl, flags, seed++, "AM " + n + " B, header " + hl + ", flags " + flags));
                        }
                    }
                }
            }
            // the handler checks each message as it comes (eager data is only valid during the call)
            pe.worker().setAmHandler(ID, (h, hOff, hLen, d, dOff, dLen, msg) -> {
                final Case c = cases.get(next++);
                assertEquals(c.header, hLen, c.what + ": header length");
                assertEquals(c.size, dLen, c.what + ": data length");
                final boolean wantRndv = c.flags == AmFlags.SEND_RNDV || c.flags == 0 && c.size >= r;
                assertEquals(wantRndv, msg.isRendezvous(), c.what + ": protocol");
                Pe.checkPattern(h.asSlice(hOff, hLen), hLen, c.seed + 1000, c.what + " header");
                if (msg.isRendezvous()) {
                    final MemorySegment dst = pe.arena().allocate(Math.max(1, dLen), 64);
                    pulled.add(dst);
                    pulls.add(pe.worker().recvAmData(msg, dst, 0, dLen));
                } else {
                    pulled.add(null);
                    pulls.add(null);
                    Pe.checkPattern(d.asSlice(dOff, dLen), dLen, c.seed, c.what + " data");
                }
                return Status.OK;
            }, 0);
            pe.barrier();
            for (int dir = 0; dir < 2; dir++) {
                if (pe.rank() == dir) {
                    for (final Case c : cases) {
                        send(pe, ID, pe.pattern(c.header, c.seed + 1000), c.header, pe.pattern(c.size, c.seed), c.size,
                            c.flags, Status.OK, c.what);
                    }
                } else {
                    // each PE receives in one direction only: next counts from 0 (no reset here, messages may
                    // already have arrived while this PE was still in the barrier)
                    until(pe, () -> next == cases.size(), "every message");
                    for (int i = 0; i < cases.size(); i++) {
                        final Request q = pulls.get(i);
                        if (q != null) {
                            final Case c = cases.get(i);
                            assertEquals(Status.OK, pe.await(q), c.what + ": rendezvous receive");
                            q.release();
                            Pe.checkPattern(pulled.get(i), c.size, c.seed, c.what + " rendezvous data");
                        }
                    }
                }
                pe.barrier();
            }
        }
    }

    /**
     * Handlers keep eager data (released later; on shm the transport descriptor itself is kept), keep a
     * rendezvous message and receive it later (truncated too), drop a rendezvous message (the sender
     * still completes), and messages to an id without handler are counted, not fatal.
     */
    public static final class KeepReleaseDropUnknown implements Scenario {
        private final List<AmMessage> kept = new ArrayList<>();
        private int mode; // 0 keep, 1 drop (return OK without receiving)
        private long seen;

        @Override
        public void run(final Pe pe) {
            pe.worker().setAmHandler(ID, (h, hOff, hLen, d, dOff, dLen, msg) -> {
                seen++;
                if (mode == 1) {
                    return Status.OK; // not received: a rendezvous message is dropped
                }
                kept.add(msg);
                return Status.IN_PROGRESS;
            }, 0);
            pe.barrier();
            final Endpoint ep = pe.ep();
            final long r = ep.rendezvousThreshold();
            final long[] eager = {8, 100, 5000, 40_000};
            if (pe.rank() == 0) {
                int seed = 10;
                for (final long n : eager) {
                    send(pe, ID, null, 0, pe.pattern(n, seed++), n, AmFlags.SEND_EAGER, Status.OK, "keep " + n);
                }
                // kept rendezvous: the send completes only once the receiver pulled the data later
                final Request big = ep.sendAm(ID, null, 0, 0, pe.pattern(r + 10, 77), 0, r + 10, AmFlags.SEND_RNDV);
                final Request small = ep.sendAm(ID, null, 0, 0, pe.pattern(64, 78), 0, 64, AmFlags.SEND_RNDV);
                assertEquals(Status.OK, pe.await(big), "kept rendezvous send");
                assertEquals(Status.OK, pe.await(small), "truncated rendezvous send");
                big.release();
                small.release();
                pe.barrier(); // the receiver switches to dropping
                send(pe, ID, null, 0, pe.pattern(r + 1, 79), r + 1, 0, Status.OK, "dropped rendezvous");
                send(pe, ID, null, 0, pe.pattern(10, 80), 10, AmFlags.SEND_RNDV, Status.OK, "dropped small rendezvous");
                // unknown id: eager sends complete (the receiver counts them), rendezvous fails clearly
                send(pe, 999, null, 0, pe.pattern(8, 1), 8, 0, Status.OK, "unknown id short");
                send(pe, 998, pe.pattern(20, 2), 20, pe.pattern(3000, 3), 3000, 0, Status.OK, "unknown id bcopy");
                send(pe, 997, null, 0, pe.pattern(100, 4), 100, AmFlags.SEND_RNDV, Status.NO_ELEMENT, "unknown id rndv");
                assertThrows(WeftException.class, () -> ep.sendAm(-1, null, 0, 0, null, 0, 0, 0), "negative id");
                assertThrows(WeftException.class, () -> ep.sendAm(1, null, 0, 0, null, 0, 0, 1 << 20), "bad flags");
                pe.barrier();
                send(pe, ID, null, 0, pe.pattern(8, 5), 8, 0, Status.OK, "after unknown ids");
                pe.barrier();
            } else {
                until(pe, () -> seen == eager.length + 2, "the kept messages");
                pe.progressFor(20);
                int seed = 10;
                for (int i = 0; i < eager.length; i++) {
                    final AmMessage m = kept.get(i);
                    assertTrue(m.isPersistent() && !m.isRendezvous(), "kept eager data is persistent");
                    assertEquals(eager[i], m.dataLength());
                    Pe.checkPattern(m.data().asSlice(m.dataOffset()), eager[i], seed++, "kept " + eager[i]);
                }
                for (int i = 0; i < eager.length; i++) {
                    pe.worker().releaseAmData(kept.get(i));
                }
                final AmMessage released = kept.get(0);
                assertThrows(WeftException.class, () -> pe.worker().releaseAmData(released), "double release");
                final AmMessage bigMsg = kept.get(eager.length);
                final AmMessage smallMsg = kept.get(eager.length + 1);
                assertTrue(bigMsg.isRendezvous() && smallMsg.isRendezvous(), "kept rendezvous");
                final MemorySegment dst = pe.arena().allocate(r + 10, 64);
                final Request q = pe.worker().recvAmData(bigMsg, dst, 0, r + 10);
                assertEquals(Status.OK, pe.await(q), "late rendezvous receive");
                q.release();
                Pe.checkPattern(dst, r + 10, 77, "late rendezvous data");
                final MemorySegment guard = pe.arena().allocate(64, 64);
                final Request t = pe.worker().recvAmData(smallMsg, guard, 0, 32);
                assertEquals(Status.MESSAGE_TRUNCATED, pe.await(t), "truncated rendezvous receive");
                t.release();
                Pe.checkPattern(guard, 32, 78, "truncated data");
                assertEquals(0, guard.get(ValueLayout.JAVA_BYTE, 32), "nothing past the receive length");
                kept.clear();
                mode = 1;
                pe.barrier();
                pe.barrier(); // unknown ids sent
                assertEquals(3, pe.worker().amUnknownIdCount(), "unknown ids counted");
                // 6 kept, 2 dropped, then one after the unknown ids (it may already be here)
                until(pe, () -> seen == eager.length + 5, "a message after unknown ids");
                pe.barrier();
            }
        }
    }

    /** Ping-pong with reply endpoints: the handler answers on {@link AmMessage#replyEndpoint()}. */
    public static final class ReplyPingPong implements Scenario {
        private long pongs;
        private long pingsSeen;
        private long lastValue = -1;
        private boolean sawNoReply;

        @Override
        public void run(final Pe pe) {
            final MemorySegment out = pe.arena().allocate(8, 8);
            final MemorySegment hdr = pe.pattern(12, 3);
            pe.worker().setAmHandler(PING, (h, hOff, hLen, d, dOff, dLen, msg) -> {
                if (msg.replyEndpoint() == null) {
                    sawNoReply = true;
                    return Status.OK;
                }
                Pe.checkPattern(h.asSlice(hOff), hLen, 3, "ping header");
                pingsSeen++;
                out.set(ValueLayout.JAVA_LONG, 0, d.get(ValueLayout.JAVA_LONG_UNALIGNED, dOff) + 1);
                final Request q = msg.replyEndpoint().sendAm(PONG, out, 0, 8, 0);
                q.release(); // completes on its own; 8 bytes leave at once
                return Status.OK;
            }, 0);
            pe.worker().setAmHandler(PONG, (h, hOff, hLen, d, dOff, dLen, msg) -> {
                assertNull(msg.replyEndpoint(), "no reply endpoint without SEND_REPLY");
                pongs++;
                lastValue = d.get(ValueLayout.JAVA_LONG_UNALIGNED, dOff);
                return Status.OK;
            }, 0);
            pe.barrier();
            final int rounds = 200;
            if (pe.rank() == 0) {
                final MemorySegment v = pe.arena().allocate(8, 8);
                for (int i = 0; i < rounds; i++) {
                    v.set(ValueLayout.JAVA_LONG, 0, i * 10L);
                    final Request q = pe.ep().sendAm(PING, hdr, 0, 12, v, 0, 8, AmFlags.SEND_REPLY);
                    pe.await(q);
                    q.release();
                    final long want = i + 1L;
                    until(pe, () -> pongs == want, "pong " + i);
                    assertEquals(i * 10L + 1, lastValue, "pong value " + i);
                }
                send(pe, PING, null, 0, v, 8, 0, Status.OK, "ping without reply flag");
            } else {
                until(pe, () -> pingsSeen == rounds && sawNoReply, "every ping");
            }
            assertNotNull(pe.ep());
            pe.barrier();
        }
    }

    /** A handler that keeps nothing: used by the allocation test. */
    public static final class Counter implements AmRecvHandler {
        public long count;
        public long sum;

        @Override
        public Status onReceive(final MemorySegment header, final long headerOffset, final long headerLength,
                                final MemorySegment data, final long dataOffset, final long dataLength,
                                final AmMessage message) {
            count++;
            sum += data.get(ValueLayout.JAVA_LONG_UNALIGNED, dataOffset);
            return Status.OK;
        }
    }
}
