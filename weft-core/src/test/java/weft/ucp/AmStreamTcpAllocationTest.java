package weft.ucp;

import org.junit.jupiter.api.Test;

/** {@link AmStreamAllocationCheck} over tcp (+self). */
class AmStreamTcpAllocationTest extends AmStreamAllocationCheck {
    @Test
    void eightByteAmAndStreamAllocateNothing() {
        check("tcp,self");
    }
}
