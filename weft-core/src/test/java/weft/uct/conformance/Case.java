package weft.uct.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.provider.Arguments;

import weft.uct.Device;
import weft.uct.InterfaceParams;
import weft.uct.Transport;
import weft.uct.Transports;
import weft.uct.UctWorker;

/**
 * One conformance case: a transport, its first usable device (null when it has none) and a mode.
 * {@link #all()} is the {@code @MethodSource} of every conformance test: it enumerates
 * {@link Transports#all()}, so a new transport is covered without edits.
 *
 * @param transport the transport under test
 * @param device    its first usable device (an interface opens on it), or null if none is
 * @param mode      where the peer lives
 */
public record Case(Transport transport, Device device, Mode mode) {

    /**
     * Every transport x first device x mode. The system property {@code weft.conformance.tls}
     * (comma separated names) narrows the run to some transports, e.g. while developing one.
     */
    public static Stream<Arguments> all() {
        final String only = System.getProperty("weft.conformance.tls", "");
        final List<String> names = only.isBlank() ? List.of() : List.of(only.split(","));
        final List<Arguments> out = new ArrayList<>();
        for (final Transport t : Transports.all()) {
            if (!names.isEmpty() && !names.contains(t.name())) {
                continue;
            }
            final Device d = firstUsable(t);
            for (final Mode m : Mode.values()) {
                out.add(Arguments.of(new Case(t, d, m)));
            }
        }
        return out.stream();
    }

    private static final Map<String, Optional<Device>> USABLE = new ConcurrentHashMap<>();
    private static final Map<String, String> WHY_NOT = new ConcurrentHashMap<>();

    /** The first device of {@code t} on which an interface opens (probed once per JVM), or null. */
    static Device firstUsable(final Transport t) {
        return USABLE.computeIfAbsent(t.name(), n -> {
            final StringBuilder why = new StringBuilder(String.valueOf(t.unavailableReason()));
            for (final Device d : t.devices()) {
                try (UctWorker w = new UctWorker()) {
                    t.openInterface(w, d, InterfaceParams.defaults()).close();
                    return Optional.of(d);
                } catch (final RuntimeException e) {
                    why.append("; ").append(d).append(": ").append(e.getMessage());
                }
            }
            WHY_NOT.put(n, why.toString());
            return Optional.empty();
        }).orElse(null);
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
