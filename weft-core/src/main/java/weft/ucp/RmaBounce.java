package weft.ucp;

import weft.ucs.memory.MemoryCopy;
import weft.uct.IoVector;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Bounce buffer of a put or get whose user memory no lane can hand to the kernel or to a peer (a
 * Java heap array: tcp's readv/writev and cma's process_vm_readv/writev need a native address). The
 * operation runs on a native copy: a put copies the user data in before it is issued, a get copies
 * the data out when it completes (before the request completes). The copy is reclaimed by the
 * garbage collector (an automatic arena), so a request failed while queued leaks nothing.
 * Slow path: native user memory never comes here.
 */
final class RmaBounce {
    private final MemorySegment user;
    private final long userOffset;
    private final IoVector userIov;
    private final MemorySegment bounce;

    private RmaBounce(final MemorySegment user, final long userOffset, final IoVector userIov,
                      final MemorySegment bounce) {
        this.user = user;
        this.userOffset = userOffset;
        this.userIov = userIov;
        this.bounce = bounce;
    }

    /** Replaces the request's local data by a native copy (filled now for a put). */
    static void attach(final Request r) {
        final MemorySegment b = Arena.ofAuto().allocate(Math.max(1, r.capacity), 64);
        final IoVector iov = r.dt == Datatypes.IOV ? r.data.iov : null;
        if (r.rma.op == Rma.PUT) {
            Datatypes.pack(r, 0, b, 0, r.capacity);
        }
        r.data.state = new RmaBounce(r.buffer, r.offset, iov, b);
        r.dt = Datatypes.CONTIG;
        r.data.iov = null;
        r.buffer = b;
        r.offset = 0;
    }

    /** On completion of a request with a bounce buffer: a successful get copies the data out. */
    static void finish(final Request r, final weft.ucs.Status st) {
        if (!(r.data.state instanceof RmaBounce b)) {
            return;
        }
        r.data.state = null;
        if (r.rma.op != Rma.GET || st != weft.ucs.Status.OK) {
            return;
        }
        if (b.userIov == null) {
            MemoryCopy.copy(b.bounce, 0, b.user, b.userOffset, r.capacity);
            return;
        }
        long pos = 0;
        for (int i = 0; i < b.userIov.count(); i++) {
            final long n = b.userIov.length(i);
            MemoryCopy.copy(b.bounce, pos, b.userIov.segment(i), b.userIov.offset(i), n);
            pos += n;
        }
    }
}
