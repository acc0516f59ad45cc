package weft.uct.conformance;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;

import weft.uct.Device;
import weft.uct.Interface;

/**
 * One peer process per device for the whole test JVM, so that cases do not pay a JVM start
 * each. A case that breaks its peer (kill, interface closed) uses {@link #fresh} and discards
 * it; a cached peer found dead is replaced. When the test interface cannot reach a peer process
 * ({@link Interface#isReachable} is false), the reason is remembered and every later
 * cross-process case of that device is skipped with it, without spawning again.
 */
final class PeerCache {
    private static final Map<Device, ProcessPeer> PEERS = new HashMap<>();
    private static final Map<Device, String> UNREACHABLE = new HashMap<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(PeerCache::closeAll, "conformance-peer-cleanup"));
    }

    private PeerCache() {
    }

    /** The cached live peer of {@code device}, spawning one if needed; skips if known unreachable. */
    static synchronized ProcessPeer acquire(final Device device) {
        assumeNotKnownUnreachable(device);
        ProcessPeer p = PEERS.get(device);
        if (p != null && !p.isAlive()) {
            discard(p);
            p = null;
        }
        if (p == null) {
            p = fresh(device);
            PEERS.put(device, p);
        }
        return p;
    }

    /** A new peer process that is not cached (for cases that break it). */
    static ProcessPeer fresh(final Device device) {
        assumeNotKnownUnreachable(device);
        final ProcessPeer p = ProcessPeer.spawn(device);
        Resources.own(p.fds(), p.readerThread());
        return p;
    }

    private static synchronized void assumeNotKnownUnreachable(final Device device) {
        final String why = UNREACHABLE.get(device);
        Assumptions.assumeTrue(why == null, () -> why);
    }

    /**
     * Skips the case (and remembers why) if {@code iface} cannot reach {@code peer}; closes the
     * peer then.
     */
    static void assumeReachable(final Interface iface, final ProcessPeer peer) {
        if (!iface.isReachable(peer.deviceAddress(), peer.interfaceAddress())) {
            final String why = iface.device() + " cannot reach an interface in another process"
                + " (isReachable is false): cross-process mode does not apply";
            synchronized (PeerCache.class) {
                UNREACHABLE.put(iface.device(), why);
            }
            discard(peer);
            Assumptions.abort(why);
        }
    }

    /** Closes {@code peer} and drops it from the cache. */
    static synchronized void discard(final ProcessPeer peer) {
        PEERS.values().remove(peer);
        final java.util.Set<Integer> fds = peer.fds();
        peer.close();
        Resources.disown(fds, peer.readerThread());
    }

    static synchronized void closeAll() {
        for (final ProcessPeer p : PEERS.values().toArray(new ProcessPeer[0])) {
            discard(p);
        }
    }
}
