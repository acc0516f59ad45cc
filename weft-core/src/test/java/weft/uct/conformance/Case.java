package weft.uct.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.provider.Arguments;

import weft.uct.Device;
import weft.uct.Transport;
import weft.uct.Transports;

/**
 * One conformance case: a transport, its first usable device (null when it has none) and a mode.
 * {@link #all()} is the {@code @MethodSource} of every conformance test: it enumerates
 * {@link Transports#all()}, so a new transport is covered without edits.
 *
 * @param transport the transport under test
 * @param device    its first device, or null if {@link Transport#devices()} is empty
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
            final List<Device> devices = t.devices();
            final Device d = devices.isEmpty() ? null : devices.get(0);
            for (final Mode m : Mode.values()) {
                out.add(Arguments.of(new Case(t, d, m)));
            }
        }
        return out.stream();
    }

    /** Aborts the test (reported as skipped, with the reason) if the transport has no device here. */
    public void assumeUsable() {
        Assumptions.assumeTrue(device != null, () -> transport.name() + " has no usable device: "
            + transport.unavailableReason());
    }

    @Override
    public String toString() {
        return (device == null ? transport.name() + "/-" : device.toString()) + " " + mode;
    }
}
