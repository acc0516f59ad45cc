package org.openucx.jucx.ucp;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.testkit.PeJob;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** JUCX's API across two processes ({@link JucxPeerMain}) over shm without cma, tcp and the default set. */
@Timeout(240)
class JucxCrossProcessTest {
    @ParameterizedTest
    @ValueSource(strings = {"shm,^cma", "tcp", "default"})
    void tagAmPutGetBetweenTwoProcesses(final String tls) {
        final Map<String, String> env = tls.equals("default") ? Map.of() : Map.of("WEFT_TLS", tls);
        final PeJob.Result r = PeJob.run(2, env, List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m"),
            200, true, JucxPeerMain.class);
        assertTrue(r.ok(), "over " + tls + ": " + r.describe());
        for (int i = 0; i < 2; i++) {
            assertTrue(r.output()[i].contains("PE " + i + " OK"), r.output()[i]);
        }
    }
}
