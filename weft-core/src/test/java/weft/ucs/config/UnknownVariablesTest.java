package weft.ucs.config;

import org.junit.jupiter.api.Test;
import weft.ucp.Context;
import weft.uct.Transports;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UnknownVariablesTest {
    static {
        Transports.all(); // every layer's variables registered, as when a context is made
        Context.configVars();
        weft.runtime.RuntimeConfig.all();
    }

    @Test
    void aTypoIsReportedWithTheNearestKnownName() {
        final List<String> u = UnknownVariables.find(Map.of("WEFT_RNDV_THRES", "8k", "WEFT_TLS", "shm",
            "WEFT_RANK", "3", "PATH", "/bin"), new Properties());
        assertEquals(List.of("WEFT_RNDV_THRES (did you mean WEFT_RNDV_THRESH?)"), u);
    }

    @Test
    void knownVariablesLauncherVariablesAndOtherNamesAreNotReported() {
        final Properties p = new Properties();
        p.setProperty("weft.tls", "tcp");
        p.setProperty("weft.conformance.tls", "shm"); // dotted: a test's own property, not a tunable
        assertTrue(UnknownVariables.find(Map.of("WEFT_KEEPALIVE_INTERVAL", "1s", "WEFT_JOB_SECRET", "x",
            "WEFT_BOOTSTRAP_TIMEOUT", "9s", "WEFT_KV_ADDRESS", "a:1", "HOME", "/root"), p).isEmpty());
    }

    @Test
    void anUnknownPropertyIsReportedInItsOwnSpelling() {
        final Properties p = new Properties();
        p.setProperty("weft.keepalive_intervall", "1s");
        p.setProperty("weft.nothing_like_it_at_all", "1");
        assertEquals(List.of("weft.keepalive_intervall (did you mean weft.keepalive_interval?)",
            "weft.nothing_like_it_at_all"), UnknownVariables.find(Map.of(), p));
    }

    @Test
    void distanceIsTheEditDistance() {
        assertEquals(0, UnknownVariables.distance("TLS", "TLS"));
        assertEquals(1, UnknownVariables.distance("RNDV_THRES", "RNDV_THRESH"));
        assertEquals(3, UnknownVariables.distance("kitten", "sitting"));
    }
}
