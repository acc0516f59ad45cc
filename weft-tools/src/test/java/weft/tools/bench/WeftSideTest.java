package weft.tools.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class WeftSideTest {
    @Test
    void theServerGetsTheBenchJvmsHotspotOptionsOnceAndNothingElse() {
        final List<String> bench = List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xss2m",
            "-XX:-BackgroundCompilation", "-Djava.awt.headless=true", "-XX:CompileThresholdScaling=0.5",
            "-XX:+UnlockDiagnosticVMOptions", "-XX:+DumpPerfMapAtExit", "-Xmx1g");
        assertEquals(List.of("-XX:CompileThresholdScaling=0.5", "-XX:+UnlockDiagnosticVMOptions",
            "-XX:+DumpPerfMapAtExit"), WeftSide.hotspotOptions(bench), "in order, without the server's own");
        assertEquals(List.of(), WeftSide.hotspotOptions(WeftSide.SERVER_JVM));
    }
}
