package weft.uct.conformance;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.junit.jupiter.api.Assumptions;

import weft.ucs.Status;
import weft.uct.Completion;
import weft.uct.Device;
import weft.uct.Endpoint;
import weft.uct.Interface;
import weft.uct.InterfaceAttributes;
import weft.uct.InterfaceParams;
import weft.uct.MemoryDomain;
import weft.uct.RemoteKey;
import weft.uct.Transport;
import weft.uct.UctWorker;

/**
 * The test side of one conformance case: a worker and interface of the transport, a peer (in-JVM,
 * loopback or process, see {@link Peer}), an endpoint to it, the unpacked key of its region and an
 * {@link Inbox} for echoed messages. {@link #close()} releases all of it and fails the test if
 * file descriptors, threads or /dev/shm files are not back to their level before {@link #open}.
 *
 * <p>Every wait here progresses the test worker (and an in-JVM peer) and has a deadline.
 */
final class Fixture implements AutoCloseable {
    final Case kase;
    final Transport transport;
    final Device device;
    final MemoryDomain md;
    final UctWorker worker;
    final Interface iface;
    final InterfaceAttributes attrs;
    final Peer peer;
    final Endpoint ep;
    final RemoteKey rkey;
    final Inbox inbox;
    final Arena arena = Arena.ofShared();
    /** Statuses reported to the interface's error handler. */
    final List<Status> errors;
    private final Resources.Snapshot baseline;
    private final boolean freshPeer;
    private boolean peerBroken;
    private boolean closed;

    private Fixture(final Case kase, final Resources.Snapshot baseline, final UctWorker worker, final Interface iface,
                    final Peer peer, final List<Status> errors, final boolean freshPeer) {
        this.kase = kase;
        this.errors = errors;
        this.freshPeer = freshPeer;
        this.transport = kase.transport();
        this.device = kase.device();
        this.md = transport.memoryDomain();
        this.baseline = baseline;
        this.worker = worker;
        this.iface = iface;
        this.attrs = iface.attributes();
        this.peer = peer;
        this.inbox = new Inbox(iface);
        this.ep = peer.isLoopback() ? iface.connect(iface.deviceAddress(), iface.interfaceAddress())
            : iface.connect(peer.deviceAddress(), peer.interfaceAddress());
        peer.connectBack(iface.deviceAddress(), iface.interfaceAddress());
        this.rkey = md.unpackRkey(peer.packedRkey());
    }

    /** Opens the case (skipping it with a reason if the transport has no device or cannot reach the peer). */
    static Fixture open(final Case kase) {
        return open(kase, false);
    }

    /**
     * Opens the case; with {@code freshPeer} a cross-process case gets its own peer process that
     * is discarded at the end (for cases that kill or break it).
     */
    static Fixture open(final Case kase, final boolean freshPeer) {
        kase.assumeUsable();
        final Transport t = kase.transport();
        t.memoryDomain(); // process-wide domain: created once, not a per-test resource
        ProcessPeer process = null;
        if (kase.mode() == Mode.CROSS_PROCESS) {
            // both skip if the device is known not to reach another process
            process = freshPeer ? PeerCache.fresh(kase.device()) : PeerCache.acquire(kase.device());
        }
        final Resources.Snapshot before = Resources.take();
        final List<Status> errs = new ArrayList<>();
        final UctWorker w = new UctWorker();
        Peer peer = null;
        try {
            final Interface i = t.openInterface(w, kase.device(),
                InterfaceParams.defaults().withErrorHandler((e, st) -> errs.add(st)));
            if (process != null) {
                PeerCache.assumeReachable(i, process);
                peer = process;
            } else {
                peer = InJvmPeer.open(t, kase.device(), i);
            }
            final Fixture f = new Fixture(kase, before, w, i, peer, errs, freshPeer);
            if (process != null) {
                process.attach(f::progress);
            }
            return f;
        } catch (final RuntimeException | Error e) {
            if (peer instanceof InJvmPeer p) {
                p.close();
            }
            if (freshPeer && process != null) {
                PeerCache.discard(process);
            }
            w.close();
            throw e;
        }
    }

    /** Skips the case unless the interface has every bit of {@code capability}. */
    void assumeCap(final long capability, final String name) {
        Assumptions.assumeTrue(attrs.has(capability), () -> device + " does not advertise " + name);
    }

    /** Progresses the test side (and an in-JVM peer). */
    int progress() {
        return worker.progress() + peer.progress();
    }

    /** Remote address of {@code offset} in the peer region. */
    long raddr(final long offset) {
        return peer.regionAddress() + offset;
    }

    /** Local memory for sources and destinations, released at close. */
    MemorySegment local(final long size) {
        return arena.allocate(Math.max(1, size), 64);
    }

    void await(final Completion c, final String what) {
        Waits.until(c::isDone, this::progress, Waits.DEFAULT_TIMEOUT_MS, () -> what + " on " + kase);
    }

    /** Retries {@code op} while it answers NO_RESOURCE (progressing); returns the final status. */
    Status retry(final Supplier<Status> op, final String what) {
        final long deadline = System.nanoTime() + Waits.DEFAULT_TIMEOUT_MS * 1_000_000L;
        int idle = 0;
        Status st;
        while ((st = op.get()) == Status.NO_RESOURCE) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " on " + kase + ": NO_RESOURCE for " + Waits.DEFAULT_TIMEOUT_MS + " ms");
            }
            idle = Waits.backoff(progress(), idle);
        }
        return st;
    }

    /** As {@link #retry} for bcopy-style calls returning a length or a negative status. */
    long retryLength(final LongSupplier op, final String what) {
        final long deadline = System.nanoTime() + Waits.DEFAULT_TIMEOUT_MS * 1_000_000L;
        int idle = 0;
        long r;
        while ((r = op.getAsLong()) == Status.NO_RESOURCE.code()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " on " + kase + ": NO_RESOURCE for " + Waits.DEFAULT_TIMEOUT_MS + " ms");
            }
            idle = Waits.backoff(progress(), idle);
        }
        return r;
    }

    /**
     * Runs an operation that takes a completion: retries NO_RESOURCE, waits for IN_PROGRESS.
     *
     * @return the final status (OK or the error, from the return value or the completion)
     */
    Status complete(final java.util.function.Function<Completion, Status> op, final String what) {
        final Completion c = new Completion();
        final Status st = retry(() -> op.apply(c.reset(1)), what);
        if (st == Status.IN_PROGRESS) {
            await(c, what + " completion");
            return c.status();
        }
        return st;
    }

    /** Flushes the endpoint with {@code flags} and waits; fails unless it completes with OK. */
    void flush(final int flags) {
        final Status st = complete(c -> ep.flush(flags, c), "flush(" + flags + ")");
        if (st != Status.OK) {
            throw new AssertionError("flush(" + flags + ") on " + kase + " ended with " + st);
        }
    }

    /** Waits until the inbox holds {@code n} messages. */
    void awaitMessages(final long n, final String what) {
        Waits.until(() -> inbox.count() >= n, this::progress, Waits.DEFAULT_TIMEOUT_MS,
            () -> n + " messages (" + what + "), got " + inbox.count() + " on " + kase + peerError());
    }

    private String peerError() {
        if (peerBroken) {
            return "";
        }
        final String e = peer.error();
        return e == null ? "" : "; peer reports: " + e;
    }

    /** Kills the peer process (SIGKILL); the peer is discarded at close. */
    void killPeer() {
        peerBroken = true;
        peer.kill();
        if (peer instanceof ProcessPeer p) {
            PeerCache.discard(p);
        }
    }

    /** Makes the peer close its interface cleanly; the peer is discarded at close. */
    void closePeerInterface() {
        peerBroken = true;
        peer.closeInterface();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        String peerErr = null;
        try {
            rkey.close();
            ep.close();
            if (!peerBroken && !peer.isLoopback()) {
                peerErr = peer.error();
                peer.disconnect();
            }
        } catch (final AssertionError e) {
            peerBroken = true; // a peer that stopped answering is not reused by the next case
            throw e;
        } finally {
            if (peer instanceof InJvmPeer p) {
                p.close();
            } else if (peer instanceof ProcessPeer p) {
                p.attach(null);
                if (peerBroken || freshPeer) {
                    PeerCache.discard(p);
                }
            }
            worker.close();
            arena.close();
        }
        if (peerErr != null) {
            throw new AssertionError("peer reported an error during " + kase + ": " + peerErr);
        }
        Resources.assertBackTo(baseline, kase.toString(), 2_000);
    }
}
