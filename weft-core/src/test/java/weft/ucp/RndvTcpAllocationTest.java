package weft.ucp;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link RndvAllocationCheck} over tcp: rendezvous by get, put and AM streaming, eager zero-copy and multi-fragment. */
class RndvTcpAllocationTest extends RndvAllocationCheck {
    @ParameterizedTest(name = "{0} scheme={1} {2} bytes {3} rndv>={4}")
    @CsvSource({
        "tcp, get,  65536,  tag, 8k",
        "tcp, put,  65536,  tag, 8k",
        "tcp, auto, 65536,  tag, 8k",   // rendezvous by AM streaming (tcp default)
        "tcp, auto, 65536,  am,  8k",
        "tcp, auto, 65536,  tag, auto", // eager zero-copy (tcp medium sizes)
        "tcp, auto, 204800, tag, auto",
        "tcp, auto, 30000,  tag, auto", // eager multi-fragment bcopy
    })
    void largeMessagesAllocateNothingPerMessage(final String tls, final String scheme, final int size,
                                                final String api, final String rndvThresh) {
        check(tls, scheme, size, api, rndvThresh);
    }
}
