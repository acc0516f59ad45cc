package weft.ucp;

import org.junit.jupiter.api.Test;

/** {@link AmStreamAllocationCheck} over shm (+self). */
class AmStreamShmAllocationTest extends AmStreamAllocationCheck {
    @Test
    void eightByteAmAndStreamAllocateNothing() {
        check("shm,self");
    }
}
