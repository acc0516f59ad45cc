package weft.ucp;

import weft.ucs.Status;
import weft.ucs.WeftException;
import weft.ucs.memory.MemoryCopy;
import weft.uct.IoVector;

import java.lang.foreign.MemorySegment;

/**
 * Moves message bytes between a request's data (contiguous segment, {@link IoVector} or
 * {@link GenericDatatype}) and a wire buffer. Every protocol copies through {@link #pack} (send side)
 * and {@link #unpack} (receive side), so each datatype works on every path (short, bcopy,
 * multi-fragment, unexpected, rendezvous over AM). Contiguous data takes one branch and one copy;
 * an iov keeps a cursor in the request (entry index and the message position where that entry
 * starts), so sequential fragments never rescan the list. Nothing here allocates.
 */
final class Datatypes {
    static final byte CONTIG = 0;
    static final byte IOV = 1;
    static final byte GENERIC = 2;

    private Datatypes() {
    }

    /** Throws INVALID_PARAM unless {@code [offset, offset+length)} lies inside {@code buf}. */
    static void checkRange(final MemorySegment buf, final long offset, final long length) {
        if (offset < 0 || length < 0 || length > buf.byteSize() - offset) {
            throw new WeftException(Status.INVALID_PARAM, "buffer range [" + offset + ", +" + length
                + ") is outside a segment of " + buf.byteSize() + " bytes");
        }
    }

    /** Copies message bytes {@code [pos, pos+len)} of send request {@code r} to {@code dst[dstOff, +len)}. */
    static void pack(final Request r, final long pos, final MemorySegment dst, final long dstOff, final long len) {
        if (r.dt == CONTIG) {
            MemoryCopy.copy(r.buffer, r.offset + pos, dst, dstOff, len);
        } else {
            packSlow(r, pos, dst, dstOff, len);
        }
    }

    /**
     * Writes message bytes {@code [pos, pos+len)} from {@code src[srcOff, +len)} into receive request
     * {@code r}, dropping what lies beyond its capacity (truncation never writes past the buffer).
     */
    static void unpack(final Request r, final long pos, final MemorySegment src, final long srcOff, final long len) {
        if (pos >= r.capacity || len <= 0) {
            return;
        }
        final long n = Math.min(len, r.capacity - pos);
        if (r.dt == CONTIG) {
            MemoryCopy.copy(src, srcOff, r.buffer, r.offset + pos, n);
        } else {
            unpackSlow(r, pos, src, srcOff, n);
        }
    }

    private static void packSlow(final Request r, final long pos, final MemorySegment dst, final long dstOff,
                                 final long len) {
        if (r.dt == IOV) {
            iovCopy(r, pos, dst, dstOff, len, false);
            return;
        }
        if (!r.data.failed) {
            try {
                r.data.generic.pack(r.data.state, pos, dst, dstOff, len);
                return;
            } catch (final RuntimeException e) {
                r.data.failed = true; // the request completes with IO_ERROR; the peer still gets every byte
            }
        }
        dst.asSlice(dstOff, len).fill((byte) 0);
    }

    private static void unpackSlow(final Request r, final long pos, final MemorySegment src, final long srcOff,
                                   final long n) {
        if (r.dt == IOV) {
            iovCopy(r, pos, src, srcOff, n, true);
        } else if (!r.data.failed) {
            try {
                r.data.generic.unpack(r.data.state, pos, src, srcOff, n);
            } catch (final RuntimeException e) {
                r.data.failed = true; // later pieces are skipped; the receive completes with IO_ERROR
            }
        }
    }

    /** Copies between message bytes {@code [pos, pos+len)} of the request's iov and {@code seg[segOff, +len)}. */
    private static void iovCopy(final Request r, final long pos, final MemorySegment seg, final long segOff,
                                final long len, final boolean intoIov) {
        final IoVector v = r.data.iov;
        final int count = v.count();
        int i = r.data.entry;
        long base = r.data.entryBase;
        if (pos < base) { // not sequential (never the case for in-order fragments): rescan
            i = 0;
            base = 0;
        }
        while (i < count && base + v.length(i) <= pos) {
            base += v.length(i);
            i++;
        }
        r.data.entry = i;
        r.data.entryBase = base;
        long done = 0;
        while (done < len && i < count) {
            final long in = pos + done - base;
            final long n = Math.min(v.length(i) - in, len - done);
            if (intoIov) {
                MemoryCopy.copy(seg, segOff + done, v.segment(i), v.offset(i) + in, n);
            } else {
                MemoryCopy.copy(v.segment(i), v.offset(i) + in, seg, segOff + done, n);
            }
            done += n;
            base += v.length(i);
            i++;
        }
    }
}
