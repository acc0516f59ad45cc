package weft.ucp;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link RndvAllocationCheck} over shm with cma (+self): rendezvous lanes are cma. */
class RndvShmAllocationTest extends RndvAllocationCheck {
    @ParameterizedTest(name = "{0} scheme={1} {2} bytes {3} rndv>={4}")
    @CsvSource({
        "shm;cma;self, get,  65536,  tag, 8k",  // rendezvous by get (cma lane)
        "shm;cma;self, put,  65536,  tag, 8k",  // rendezvous by put
        "shm;cma;self, get,  65536,  am,  8k",  // AM rendezvous received with recvAmData
    })
    void largeMessagesAllocateNothingPerMessage(final String tls, final String scheme, final int size,
                                                final String api, final String rndvThresh) {
        check(tls, scheme, size, api, rndvThresh);
    }
}
