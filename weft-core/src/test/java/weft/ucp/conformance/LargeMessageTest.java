package weft.ucp.conformance;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A tag message above 2 GiB, both PEs in one JVM over shm+cma (8 GiB of native memory at most). */
@Tag("slow")
@Timeout(600)
class LargeMessageTest {
    @Test
    void messageAboveTwoGigabytes() throws Exception {
        ScenarioRunner.run(TagScenarios.Huge.class, "shm,cma,self", ScenarioRunner.Mode.IN_JVM, 580);
    }
}
