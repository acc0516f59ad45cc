package weft.ucp.conformance;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** put/get above 2 GiB over shm and tcp (both PEs in one JVM, ~4.3 GiB of native memory). */
@Tag("slow")
@Timeout(900)
class RmaHugeTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm,self", "tcp,self"})
    void putGetAboveTwoGigabytes(final String tls) throws Exception {
        // one shm put of 2 GiB is one memcpy (no progress meanwhile): on a loaded machine it can take
        // longer than the 30 s keepalive timeout, after which the peer rightly gives up on this PE
        final String old = System.getProperty("weft.keepalive_timeout");
        System.setProperty("weft.keepalive_timeout", "10m");
        try {
            ScenarioRunner.run(RmaExactScenarios.Huge.class, tls, ScenarioRunner.Mode.IN_JVM, 800);
        } finally {
            if (old == null) {
                System.clearProperty("weft.keepalive_timeout");
            } else {
                System.setProperty("weft.keepalive_timeout", old);
            }
        }
    }
}
