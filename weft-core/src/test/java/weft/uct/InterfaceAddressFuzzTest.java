package weft.uct;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import weft.ucs.WeftException;
import weft.testkit.FuzzBytes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzzing of the device and interface addresses peers advertise in their worker
 * addresses: every transport's {@link Interface#isReachable} (may only answer true or false) and
 * {@link Interface#connect} (may only return an endpoint or throw {@link WeftException}). Half of the
 * inputs are the real addresses of a second interface of the same transport with a few fields edited
 * (pid, start time, memory file ids and lengths, FIFO geometry, port, token), so that the checks behind
 * the decoding are reached.
 *
 * <p>Nothing leaves this process for an address the fuzzer made up: a tcp connect is made only when the
 * address names the second interface's own loopback ip and port (a connection to it is cheap and local);
 * other tcp addresses are only decoded and judged.
 */
class InterfaceAddressFuzzTest {
    private static UctWorker worker;
    private static final List<Interface[]> PAIRS = new ArrayList<>();

    private static synchronized void setUp() {
        if (worker != null) {
            return;
        }
        worker = new UctWorker();
        for (final Transport t : Transports.all()) {
            if (t.unavailableReason() != null || t.devices().isEmpty()) {
                continue;
            }
            Device d = t.devices().get(0);
            for (final Device x : t.devices()) {
                if (x.name().equals("lo")) {
                    d = x;
                }
            }
            if (t.name().equals("tcp") && !d.name().equals("lo")) {
                continue;
            }
            PAIRS.add(new Interface[] {t.openInterface(worker, d, InterfaceParams.defaults()),
                t.openInterface(worker, d, InterfaceParams.defaults())});
        }
    }

    @AfterAll
    static synchronized void tearDown() {
        if (worker != null) {
            for (final Interface[] p : PAIRS) {
                p[0].close();
                p[1].close();
            }
            PAIRS.clear();
            worker.close();
            worker = null;
        }
    }

    @FuzzTest(maxDuration = "2m")
    void connect(final FuzzedDataProvider data) {
        setUp();
        final Interface[] p = PAIRS.get(data.consumeInt(0, PAIRS.size() - 1));
        final Interface a = p[0];
        final Interface b = p[1];
        final byte[] dev = data.consumeBoolean() ? b.deviceAddress() : FuzzBytes.edit(data, b.deviceAddress());
        final byte[] ifc = FuzzBytes.edit(data, b.interfaceAddress());
        final boolean reachable = a.isReachable(dev, ifc);
        if (reachable) {
            a.isDirect(dev, ifc);
        }
        if (a.transport().name().equals("tcp") && !sameIpPort(ifc, b.interfaceAddress())) {
            return; // never a connection to an address the fuzzer made up
        }
        final Endpoint ep;
        try {
            ep = a.connect(dev, ifc);
        } catch (final WeftException e) {
            return; // declared
        }
        ep.close();
        a.progress();
        b.progress();
    }

    /** Same version, ip and port as the real tcp interface address (bytes 0..6). */
    private static boolean sameIpPort(final byte[] x, final byte[] real) {
        return x.length >= 7 && Arrays.equals(x, 0, 7, real, 0, 7);
    }
}
