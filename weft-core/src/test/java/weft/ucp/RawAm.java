package weft.ucp;

import weft.uct.Interface;
import weft.uct.Packer;

import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

/**
 * What tests of malformed input need to reach a worker's protocol handlers with hand-made messages: a bare
 * uct endpoint to its shm interface ({@code shm(a).connect(...)}, then {@code amBcopy(AmId.X, new
 * Bytes(...))}) and a bounded wait that progresses both workers.
 */
final class RawAm {
    private RawAm() {
    }

    /** Packs fixed bytes. */
    record Bytes(MemorySegment bytes) implements Packer {
        @Override
        public long pack(final MemorySegment d, final long o, final long capacity) {
            MemorySegment.copy(bytes, 0, d, o, bytes.byteSize());
            return bytes.byteSize();
        }
    }

    /** The shm interface of {@code w}. */
    static Interface shm(final Worker w) {
        for (final WorkerIface wi : w.ifaces) {
            if (wi.name().startsWith("shm")) {
                return wi.iface;
            }
        }
        throw new AssertionError("no shm interface in " + w.resources());
    }

    /** A context over shm and self with every feature: the workers these tests feed by hand. */
    static Context context() {
        return Context.builder().features(Feature.values()).transports("shm", "self").build();
    }

    /** A bare uct endpoint from {@code from}'s shm interface to {@code to}'s: it sends whatever it is given. */
    static weft.uct.Endpoint rawEndpoint(final Worker from, final Worker to) {
        final Interface ti = shm(to);
        return shm(from).connect(ti.deviceAddress(), ti.interfaceAddress());
    }

    /** Progresses {@code a} and {@code b} until {@code c} holds; fails after 10 s. */
    static void progressUntil(final Worker a, final Worker b, final BooleanSupplier c) {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!c.getAsBoolean()) {
            a.progress();
            b.progress();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out");
            }
        }
    }
}
