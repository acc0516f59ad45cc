package weft.runtime;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.sys.LibC;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PMI-2 bootstrap against {@link FakePmi2Server} over socketpairs: the start-up exchange, put, fence
 * and get between two PEs, abort, finalize, and every way a process manager's answer can be wrong.
 */
@Timeout(60)
class Pmi2BootstrapTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(10);
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (final AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    private FakePmi2Server server(final int size, final String mapping) {
        final FakePmi2Server s = new FakePmi2Server(size, mapping);
        toClose.add(s);
        return s;
    }

    private Pmi2Bootstrap join(final FakePmi2Server s, final int rank, final long timeoutNs) {
        final int fd = s.clientFd(rank);
        final Pmi2Bootstrap b = Pmi2Bootstrap.connect(new Pmi2Channel(fd, "PMI_FD=" + fd), "fake.0",
            Integer.toString(rank), timeoutNs);
        toClose.add(b);
        return b;
    }

    private WeftException joinFails(final FakePmi2Server s, final long timeoutNs) {
        return assertThrows(WeftException.class, () -> join(s, 0, timeoutNs));
    }

    @Test
    void shouldExchangeValuesBetweenTwoPes() throws Exception {
        final FakePmi2Server s = server(2, "(vector,(0,1,2))");
        final byte[] big = new byte[5000]; // 7 pieces of encoded text
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        final String oddKey = "a key with spaces; and = signs, longer than forty characters";
        final List<CompletableFuture<String>> pes = new ArrayList<>();
        final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        toClose.add(threads::shutdownNow); // both PEs wait in the fence at once: one thread each
        for (int rank = 0; rank < 2; rank++) {
            final Pmi2Bootstrap b = join(s, rank, TIMEOUT);
            pes.add(CompletableFuture.supplyAsync(() -> {
                final int me = b.layout().rank();
                b.put("hello", ("from " + me).getBytes(StandardCharsets.UTF_8));
                b.put("big", big);
                b.put(oddKey, new byte[] {(byte) me});
                b.put("empty", new byte[0]);
                b.commit();
                b.fence();
                final int peer = 1 - me;
                assertEquals("from " + peer, new String(b.get(peer, "hello"), StandardCharsets.UTF_8));
                assertArrayEquals(big, b.get(peer, "big"));
                assertArrayEquals(new byte[] {(byte) peer}, b.get(peer, oddKey));
                assertArrayEquals(new byte[0], b.get(peer, "empty"));
                assertArrayEquals(("from " + me).getBytes(StandardCharsets.UTF_8), b.get(me, "hello"));
                assertEquals(Status.NO_ELEMENT, assertThrows(WeftException.class, () -> b.get(peer, "absent")).status());
                assertEquals(Status.INVALID_PARAM, assertThrows(WeftException.class, () -> b.get(2, "hello")).status());
                return b.layout().toString();
            }, threads));
        }
        assertEquals("JobLayout[rank=0, size=2, localRank=0, localSize=2, nodeId=0, jobId=fake.0]",
            pes.get(0).get(30, TimeUnit.SECONDS));
        assertEquals("JobLayout[rank=1, size=2, localRank=1, localSize=2, nodeId=0, jobId=fake.0]",
            pes.get(1).get(30, TimeUnit.SECONDS));
        // the wire: PMI-1 init line, then PMI-2 commands with the launcher's ids
        final List<String> reqs = s.requests();
        assertTrue(reqs.contains("cmd=init pmi_version=2 pmi_subversion=0"), reqs.toString());
        assertTrue(reqs.contains("cmd=fullinit;pmijobid=fake.0;pmirank=1;threaded=FALSE;"), reqs.toString());
        assertTrue(reqs.contains("cmd=info-getjobattr;key=PMI_process_mapping;"), reqs.toString());
        assertTrue(reqs.contains("cmd=kvs-get;srcid=0;key=weft.0.hello;"), reqs.toString());
        // keys fit PMI-2's 64 characters, values its 1024, and no value carries a ';'
        for (final Map.Entry<String, String> e : s.published().entrySet()) {
            assertTrue(e.getKey().length() <= 64 && e.getValue().length() <= 1024, e.getKey());
        }
        assertTrue(s.published().containsKey("weft.0.big#6") && !s.published().containsKey("weft.0.big#7"));
    }

    @Test
    void shouldPlaceRanksOnNodesFromTheProcessMapping() {
        final FakePmi2Server s = server(4, "(vector,(0,2,2))");
        final JobLayout l = join(s, 2, TIMEOUT).layout();
        assertEquals(new JobLayout(2, 4, 0, 2, 1, "fake.0"), l);
    }

    @Test
    void shouldAssumeOnePePerNodeWithoutAMapping() {
        final FakePmi2Server s = server(3, null);
        assertEquals(new JobLayout(1, 3, 0, 1, 1, "fake.0"), join(s, 1, TIMEOUT).layout());
    }

    @Test
    void shouldFinalizeOnClose() throws Exception {
        final FakePmi2Server s = server(1, null);
        join(s, 0, TIMEOUT).close();
        assertTrue(s.finalized);
        assertEquals("cmd=finalize;", s.requests().getLast());
    }

    /** The process exits (a shutdown hook closes the bootstrap) while its main thread still waits in a fence. */
    @Test
    void shouldNotFinalizeUnderAFenceStillWaiting() throws Exception {
        final FakePmi2Server s = server(2, null);
        final int fd = s.clientFd(0);
        final Pmi2Channel channel = new Pmi2Channel(fd, "PMI_FD=" + fd);
        toClose.add(channel);
        final Pmi2Bootstrap b = Pmi2Bootstrap.connect(channel, null, "0", TimeUnit.SECONDS.toNanos(2));
        final java.util.concurrent.ExecutorService main = java.util.concurrent.Executors.newSingleThreadExecutor();
        toClose.add(main::shutdownNow);
        final CompletableFuture<WeftException> fence = CompletableFuture.supplyAsync(
            () -> assertThrows(WeftException.class, b::fence), main);
        waitFor(() -> s.requests().contains("cmd=kvs-fence;"));
        final long t0 = System.nanoTime();
        b.close();
        assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(500), "close waited for the fence");
        assertEquals(Status.TIMED_OUT, fence.get(10, TimeUnit.SECONDS).status());
        assertFalse(s.requests().contains("cmd=finalize;"), "a finalize would have crossed the fence's answer");
    }

    @Test
    void shouldAskTheProcessManagerToEndTheWholeJobOnAbort() throws Exception {
        final FakePmi2Server s = server(1, null);
        final Pmi2Bootstrap b = join(s, 0, TIMEOUT);
        b.abort(3, "it broke; badly\nreally");
        waitFor(() -> s.abortRequest != null);
        assertEquals("cmd=abort;isworld=TRUE;msg=rank 0 aborted the job (status 3): it broke, badly really;",
            s.abortRequest);
        assertEquals(Status.CANCELED, assertThrows(WeftException.class, b::fence).status());
        b.close();
        assertFalse(s.requests().contains("cmd=finalize;"), "no finalize after an abort");
    }

    @Test
    void shouldGiveUpOnAFenceAPeNeverEntersAndStillAbort() throws Exception {
        final FakePmi2Server s = server(2, null);
        final Pmi2Bootstrap b = join(s, 0, TimeUnit.MILLISECONDS.toNanos(500)); // rank 1 never starts
        final long t0 = System.nanoTime();
        final WeftException e = assertThrows(WeftException.class, b::fence);
        assertEquals(Status.TIMED_OUT, e.status());
        assertTrue(e.getMessage().contains("PMI-2 kvs-fence did not complete within 0.5 s (WEFT_BOOTSTRAP_TIMEOUT): a PE "
            + "may have died or never reached the fence (rank 0 of 2)"), e.getMessage());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
        // the stream is out of step now: further calls fail at once, but an abort still goes out
        assertTrue(assertThrows(WeftException.class, () -> b.get(1, "k")).getMessage().contains("unusable"));
        b.abort(1, "fence timed out");
        waitFor(() -> s.abortRequest != null);
        assertTrue(s.abortRequest.startsWith("cmd=abort;isworld=TRUE;msg=rank 0 aborted"), s.abortRequest);
    }

    @Test
    void shouldReportAProcessManagerThatSpeaksOnlyPmi1() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=init")
            ? "cmd=response_to_init rc=-1 pmi_version=1 pmi_subversion=1\n".getBytes(StandardCharsets.US_ASCII) : null);
        final WeftException e = joinFails(s, TIMEOUT);
        assertEquals(Status.UNSUPPORTED, e.status());
        assertTrue(e.getMessage().contains("refused PMI version 2.0 (it answered 'cmd=response_to_init rc=-1 "
            + "pmi_version=1 pmi_subversion=1'): it speaks only PMI-1"), e.getMessage());
    }

    @Test
    void shouldReportAGarbledInitAnswer() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=init") ? "hello there\n".getBytes(StandardCharsets.US_ASCII)
            : null);
        assertTrue(joinFails(s, TIMEOUT).getMessage().contains("malformed message from the process manager on PMI_FD="),
            "garbled");
    }

    @Test
    void shouldReportALengthFieldThatIsNotANumber() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=fullinit") ? "abcdefcmd=x;".getBytes(StandardCharsets.US_ASCII)
            : null);
        final WeftException e = joinFails(s, TIMEOUT);
        assertEquals(Status.IO_ERROR, e.status());
        assertTrue(e.getMessage().contains("a length field that is not a number in 'abcdef'"), e.getMessage());
    }

    @Test
    void shouldReportAnAbsurdLength() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=fullinit") ? "0     ".getBytes(StandardCharsets.US_ASCII) : null);
        assertTrue(joinFails(s, TIMEOUT).getMessage().contains("a message length of 0"));
    }

    @Test
    void shouldReportAnAnswerWithoutCmd() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=fullinit") ? FakePmi2Server.frame("rc=0;rank=0;size=1;") : null);
        assertTrue(joinFails(s, TIMEOUT).getMessage().contains("no 'cmd=' at its start in 'rc=0;rank=0;size=1;'"));
    }

    @Test
    void shouldReportAValueNotEndedBySemicolon() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=fullinit") ? FakePmi2Server.frame("cmd=fullinit-response;rc=0")
            : null);
        assertTrue(joinFails(s, TIMEOUT).getMessage().contains("a value not ended by ';'"));
    }

    @Test
    void shouldReportTheWrongAnswer() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=fullinit") ? FakePmi2Server.frame("cmd=kvs-get-response;rc=0;")
            : null);
        final WeftException e = joinFails(s, TIMEOUT);
        assertTrue(e.getMessage().contains("expected fullinit-response from the process manager on PMI_FD="
            + "") && e.getMessage().contains("got 'cmd=kvs-get-response;rc=0;'"), e.getMessage());
    }

    @Test
    void shouldReportARefusalWithTheServersMessage() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=fullinit")
            ? FakePmi2Server.frame("cmd=fullinit-response;rc=3;errmsg=pmirank missing;") : null);
        assertTrue(joinFails(s, TIMEOUT).getMessage().contains("answered fullinit-response with rc=3: pmirank missing"));
    }

    @Test
    void shouldReportARankOutsideTheJobAndMissingFields() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=fullinit")
            ? FakePmi2Server.frame("cmd=fullinit-response;rc=0;rank=4;size=2;") : null);
        assertTrue(joinFails(s, TIMEOUT).getMessage().contains("gave rank 4 of a job of 2"));
        final FakePmi2Server s2 = server(1, null);
        s2.answerWith((r, req) -> req.startsWith("cmd=fullinit")
            ? FakePmi2Server.frame("cmd=fullinit-response;rc=0;rank=x;size=2;") : null);
        assertTrue(joinFails(s2, TIMEOUT).getMessage().contains("non-numeric rank='x'"));
    }

    @Test
    void shouldReportAMalformedProcessMapping() {
        final FakePmi2Server s = server(2, "(vector,(0,1))");
        assertTrue(joinFails(s, TIMEOUT).getMessage().contains("PMI_process_mapping '(vector,(0,1))' is malformed: "
            + "a block of 2 numbers, not 3"));
    }

    @Test
    void shouldReportAProcessManagerThatClosesTheStream() throws Exception {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> {
            if (req.startsWith("cmd=job-getid")) {
                throw new IllegalStateException("hang up"); // ends the serving thread: closed below
            }
            return null;
        });
        final int fd = s.clientFd(0);
        final Thread closer = Thread.ofPlatform().start(() -> {
            waitFor(() -> s.requests().stream().anyMatch(q -> q.startsWith("cmd=job-getid")));
            try {
                s.close();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        final WeftException e = assertThrows(WeftException.class, () -> Pmi2Bootstrap.connect(
            new Pmi2Channel(fd, "PMI_FD=" + fd), null, "0", TIMEOUT));
        closer.join();
        assertEquals(Status.CONNECTION_RESET, e.status());
        assertTrue(e.getMessage().contains("the process manager closed PMI_FD=" + fd), e.getMessage());
    }

    @Test
    void shouldTimeOutOnAProcessManagerThatNeverAnswers() {
        final FakePmi2Server s = server(1, null);
        s.answerWith((r, req) -> req.startsWith("cmd=fullinit") ? new byte[0] : null); // silence
        final long t0 = System.nanoTime();
        final WeftException e = joinFails(s, TimeUnit.MILLISECONDS.toNanos(300));
        assertEquals(Status.TIMED_OUT, e.status());
        assertTrue(e.getMessage().contains("no answer from the process manager on PMI_FD="), e.getMessage());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void shouldReportAValueWeftDidNotStore() throws Exception {
        final FakePmi2Server s = server(2, null);
        s.answerWith((r, req) -> req.startsWith("cmd=kvs-get")
            ? FakePmi2Server.frame("cmd=kvs-get-response;rc=0;found=TRUE;value=garbage;") : null);
        final Pmi2Bootstrap b = join(s, 0, TIMEOUT);
        assertTrue(assertThrows(WeftException.class, () -> b.get(1, "k")).getMessage()
            .contains("the value under 'weft.1.k' is not one Weft stored: 'garbage'"));
    }

    @Test
    void shouldNameAMissingBadOrClosedPmiFd() {
        final WeftException missing = assertThrows(WeftException.class, () -> Pmi2Bootstrap.open(Map.<String, String>of()::get,
            TIMEOUT));
        assertTrue(missing.getMessage().contains("needs PMI_FD") && missing.getMessage().contains("srun --mpi=pmi2"));
        assertTrue(assertThrows(WeftException.class, () -> Pmi2Bootstrap.open(Map.of("PMI_FD", "x")::get, TIMEOUT))
            .getMessage().contains("invalid PMI_FD='x'"));
        final int[] fds = new int[2];
        assertEquals(0, LibC.socketpair(LibC.AF_UNIX, LibC.SOCK_STREAM, fds));
        LibC.close(fds[0]);
        LibC.close(fds[1]);
        final WeftException closed = assertThrows(WeftException.class, () -> Pmi2Bootstrap.open(
            Map.of("PMI_FD", Integer.toString(fds[0]))::get, TIMEOUT));
        assertTrue(closed.getMessage().contains("PMI_FD=" + fds[0] + " is not an open descriptor"), closed.getMessage());
    }

    @Test
    void shouldParseAndWriteMessages() {
        final Pmi2Message m = Pmi2Message.parse("cmd=kvs-get-response;rc=0;value=a;;b=c;found=TRUE;", "test");
        assertEquals("kvs-get-response", m.cmd());
        assertEquals("a;b=c", m.get("value"));
        assertTrue(m.flag("found"));
        assertEquals("cmd=kvs-put;key=k;value=v=w;", Pmi2Message.of("kvs-put", "key", "k", "value", "v=w").encode());
        assertThrows(IllegalArgumentException.class, () -> Pmi2Message.of("kvs-put", "value", "a;b").encode());
        assertTrue(assertThrows(WeftException.class, () -> Pmi2Message.parse("cmd=x;=y;", "test")).getMessage()
            .contains("an empty key"));
        assertTrue(assertThrows(WeftException.class, () -> Pmi2Message.parse("cmd=x;novalue;", "test")).getMessage()
            .contains("a field without '='"));
    }

    @Test
    void shouldMapRanksToNodesAsPmiDoes() {
        assertEquals("[0, 0, 1, 1, 2, 2]", Arrays.toString(ProcessMapping.nodes("(vector,(0,3,2))", 6)));
        assertEquals("[0, 1, 0, 1, 0]", Arrays.toString(ProcessMapping.nodes("(vector,(0,2,1))", 5))); // cyclic
        assertEquals("[0, 0, 0, 1, 2]", Arrays.toString(ProcessMapping.nodes(" (vector, (0,1,3), (1,2,1)) ", 5)));
        assertEquals(new JobLayout(4, 5, 2, 3, 0, "j"), ProcessMapping.layout(new int[] {0, 1, 0, 1, 0}, 4, "j"));
        for (final String bad : List.of("", "(vector)", "(vector,(0,0,1))", "(vector,(a,1,1))", "(list,(0,1,1))",
            "(vector,(0,1,1)(1,1,1))")) {
            assertThrows(WeftException.class, () -> ProcessMapping.nodes(bad, 2), bad);
        }
    }

    private static void waitFor(final java.util.function.BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            try {
                Thread.sleep(5);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
