package mpi;

import java.lang.foreign.MemorySegment;

/** {@code Comm.pack}/{@code unpack}: typed data to and from a byte array at a position. */
final class Packing {
    private Packing() {
    }

    static int pack(final Object inbuf, final int incount, final Datatype type, final byte[] outbuf,
                    final int position) throws MPIException {
        final Span in = Args.data(inbuf, incount, type);
        final long bytes = incount * type.size;
        if (outbuf == null || position < 0 || position + bytes > outbuf.length) {
            throw new MPIException(MPI.ERR_BUFFER, "pack needs " + bytes + " B at position " + position + " of a "
                + (outbuf == null ? "null" : outbuf.length + " B") + " buffer");
        }
        TypeCursor.pack(in, incount, type, MemorySegment.ofArray(outbuf), position);
        return Math.toIntExact(position + bytes);
    }

    static int unpack(final byte[] inbuf, final int position, final Object outbuf, final int outcount,
                      final Datatype type) throws MPIException {
        final Span out = Args.data(outbuf, outcount, type);
        final long bytes = outcount * type.size;
        if (inbuf == null || position < 0 || position + bytes > inbuf.length) {
            throw new MPIException(MPI.ERR_TRUNCATE, "unpack needs " + bytes + " B at position " + position + " of a "
                + (inbuf == null ? "null" : inbuf.length + " B") + " buffer");
        }
        TypeCursor.unpack(MemorySegment.ofArray(inbuf), position, out, outcount, type);
        out.finish();
        return Math.toIntExact(position + bytes);
    }
}
