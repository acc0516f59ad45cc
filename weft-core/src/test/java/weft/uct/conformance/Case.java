package weft.uct.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.provider.Arguments;

import weft.uct.Capability;
import weft.uct.Device;
import weft.uct.Interface;
import weft.uct.InterfaceParams;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;

/**
 * One conformance case: a transport, its first usable device (null when it has none) and a mode.
 * {@link #all()} (or one of its capability-filtered forms) is the {@code @MethodSource} of every
 * conformance test: it enumerates {@link Transports#all()}, so a new transport is covered without edits.
 * Cells that can never apply (a capability the transport does not advertise, a peer it cannot reach) are
 * not made, so that a skip always says something about this machine.
 *
 * @param transport the transport under test
 * @param device    its first usable device (an interface opens on it), or null if none is
 * @param mode      where the peer lives
 */
public record Case(Transport transport, Device device, Mode mode) {

    /**
     * Every transport x first device x mode, less the cells that can never apply: a transport whose
     * interface cannot reach a second interface in its own process (self) has no cross-process cell. The
     * system property {@code weft.conformance.tls} (comma separated names) narrows the run to some
     * transports, e.g. while developing one.
     */
    public static Stream<Arguments> all() {
        return cells(p -> true);
    }

    /** The cells of transports that advertise an active message class (short, bcopy or zcopy). */
    public static Stream<Arguments> withAm() {
        return cells(p -> p.has(Capability.AM_SHORT | Capability.AM_BCOPY | Capability.AM_ZCOPY));
    }

    /** The cells of transports that advertise 32- or 64-bit atomics. */
    public static Stream<Arguments> withAtomics() {
        return cells(p -> p.has(Capability.ATOMIC32 | Capability.ATOMIC64));
    }

    /**
     * Active messages to a peer that is another interface (in this JVM or another process), not the test
     * interface itself: the cells where a receiver can pause, close or fall behind.
     */
    public static Stream<Arguments> withAmToAnotherInterface() {
        return cells(p -> p.has(Capability.AM_SHORT | Capability.AM_BCOPY | Capability.AM_ZCOPY),
            Mode.CROSS_PROCESS, true);
    }

    /**
     * The cross-process cells of transports that detect a peer's failure (ERRHANDLE_PEER_FAILURE or
     * EP_CHECK): only a peer in another process can be killed.
     */
    public static Stream<Arguments> crossProcessWithFailureDetection() {
        return cells(p -> p.has(Capability.ERRHANDLE_PEER_FAILURE | Capability.EP_CHECK), Mode.CROSS_PROCESS, false);
    }

    private static Stream<Arguments> cells(final Predicate<Probe> applies) {
        return cells(applies, null, true);
    }

    /**
     * @param only     one mode only, or null for both
     * @param inJvmToo with {@code only}: also the in-JVM cell where the peer is a second interface
     */
    private static Stream<Arguments> cells(final Predicate<Probe> applies, final Mode only, final boolean inJvmToo) {
        final String names = System.getProperty("weft.conformance.tls", "");
        final List<String> wanted = names.isBlank() ? List.of() : List.of(names.split(","));
        final List<Arguments> out = new ArrayList<>();
        for (final Transport t : Transports.all()) {
            if (!wanted.isEmpty() && !wanted.contains(t.name())) {
                continue;
            }
            final Probe p = probe(t);
            // no usable device here: keep the cells, which skip naming why (a fact of this machine)
            if (p.device != null && !applies.test(p)) {
                continue;
            }
            for (final Mode m : Mode.values()) {
                final boolean second = p.device == null || p.reachesSecondInterface;
                if (m == Mode.CROSS_PROCESS && !second) {
                    continue; // cannot reach another interface even in its own process
                }
                if (only != null && m != only && !(inJvmToo && m == Mode.IN_JVM && second)) {
                    continue;
                }
                out.add(Arguments.of(new Case(t, p.device, m)));
            }
        }
        return out.stream();
    }

    /**
     * What one interface of a transport shows, probed once per JVM: its first usable device (null when
     * none is), its capabilities, and whether it reaches a second interface of the same device.
     */
    record Probe(Device device, long capabilities, boolean reachesSecondInterface) {
        boolean has(final long anyOf) {
            return (capabilities & anyOf) != 0;
        }
    }

    private static final Map<String, Probe> PROBES = new ConcurrentHashMap<>();
    private static final Map<String, String> WHY_NOT = new ConcurrentHashMap<>();

    /** The probe of {@code t} (made once per JVM). */
    static Probe probe(final Transport t) {
        return PROBES.computeIfAbsent(t.name(), n -> {
            final StringBuilder why = new StringBuilder(String.valueOf(t.unavailableReason()));
            for (final Device d : t.devices()) {
                try (UctWorker w = new UctWorker(); UctWorker w2 = new UctWorker()) {
                    final Interface i = t.openInterface(w, d, InterfaceParams.defaults());
                    final Interface second = t.openInterface(w2, d, InterfaceParams.defaults());
                    final Probe p = new Probe(d, i.attributes().flags(),
                        i.isReachable(second.deviceAddress(), second.interfaceAddress()));
                    second.close();
                    i.close();
                    return p;
                } catch (final RuntimeException e) {
                    why.append("; ").append(d).append(": ").append(e.getMessage());
                }
            }
            WHY_NOT.put(n, why.toString());
            return new Probe(null, 0, false);
        });
    }

    /** The first device of {@code t} on which an interface opens (probed once per JVM), or null. */
    static Device firstUsable(final Transport t) {
        return probe(t).device();
    }

    /** Aborts the test (reported as skipped, with the reason) if the transport has no device here. */
    public void assumeUsable() {
        Assumptions.assumeTrue(device != null, () -> transport.name() + " has no usable device: "
            + WHY_NOT.get(transport.name()));
    }

    @Override
    public String toString() {
        return (device == null ? transport.name() + "/-" : device.toString()) + " " + mode;
    }
}
