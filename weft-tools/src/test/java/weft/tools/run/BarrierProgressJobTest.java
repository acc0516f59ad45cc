package weft.tools.run;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import weft.ucs.config.Config;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A PE waiting in the launcher's barrier ({@code Runtime.barrier()}) still progresses its workers: a peer's
 * synchronous send that needs this PE's match completes, instead of both waiting until the bootstrap's
 * timeout ({@link BarrierProgressPe}).
 */
@Timeout(180)
class BarrierProgressJobTest {
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aPeInTheBarrierAnswersItsPeers(final String tls) {
        final List<String> a = new ArrayList<>(LaunchTest.FAST_JVM);
        a.addAll(List.of("-n", "2", "--tag-output", "--timeout", "150", "-x", "WEFT_TLS=" + tls,
            BarrierProgressPe.class.getName()));
        // a bootstrap timeout far beyond what the exchange needs, and far below the test's: a rank that does
        // not progress in the barrier fails the job at 60 s instead of hanging it
        final LaunchTest.Job job = LaunchTest.run(Config.global().with("BOOTSTRAP_TIMEOUT", "60s"), a);
        assertEquals(0, job.rc(), job.toString());
        assertTrue(job.out().contains("[0] ok 0") && job.out().contains("[1] ok 1"), job.toString());
    }
}
