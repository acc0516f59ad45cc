package weft.tools.perftest;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What one run measures: the part of the command line that the client sends to the server, so
 * that both sides run the same test (as ucx_perftest does).
 *
 * @param test        the test
 * @param sizes       scatter/gather lengths of one message (-s); the message size is their sum
 * @param iterations  measured iterations (-n)
 * @param warmup      unmeasured iterations run first (-w)
 * @param layout      short, bcopy or zcopy (-D)
 * @param outstanding max uncompleted operations in bandwidth tests (-O; 0 = the default)
 * @param window      active-message flow-control window (-W): the sender stops when this many
 *                    messages are not yet credited by the receiver
 * @param percentile  the percentile reported as "typical" latency (-R)
 * @param transport   transport name (-x)
 * @param device      device name (-d), or empty for the transport's first device
 */
public record PerfParams(PerfTestKind test, long[] sizes, long iterations, long warmup, Layout layout,
                         int outstanding, int window, double percentile, String transport, String device) {
    /** Data layout of the sender's operations (-D). */
    public enum Layout {
        /** Transport layer: inline, copied or zero-copy operations. */
        SHORT, BCOPY, ZCOPY,
        /** Protocol layer: one contiguous buffer (what the default, short, means there too). */
        CONTIG,
        /** Protocol layer, tag tests: the message is a scatter/gather list of the -s lengths. */
        IOV;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        static Layout parse(final String s) {
            return switch (s) {
                case "short" -> SHORT;
                case "bcopy" -> BCOPY;
                case "zcopy" -> ZCOPY;
                case "contig" -> CONTIG;
                case "iov" -> IOV;
                case "shortiov" -> throw new IllegalArgumentException("data layout '" + s
                    + "' is not supported by weft perftest; use short, bcopy or zcopy (transport layer), contig or "
                    + "iov (protocol layer)");
                default -> throw new IllegalArgumentException("unknown data layout '" + s
                    + "'; use short, bcopy or zcopy (transport layer), contig or iov (protocol layer)");
            };
        }
    }

    /**
     * Default when -O is 0 for the tests ucx_perftest gives no window of 32 (see
     * {@link PerfTestKind#defaultOutstanding()}): how many zcopy/get operations may be in flight.
     */
    static final int DEFAULT_OUTSTANDING = 64;

    public PerfParams {
        if (sizes.length == 0) {
            throw new IllegalArgumentException("-s needs at least one size");
        }
        for (final long s : sizes) {
            if (s < 0) {
                throw new IllegalArgumentException("message sizes must not be negative: " + s);
            }
        }
        if (iterations <= 0) {
            throw new IllegalArgumentException("-n must be positive: " + iterations);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("-w must not be negative: " + warmup);
        }
        if (outstanding < 0) {
            throw new IllegalArgumentException("-O must not be negative: " + outstanding);
        }
        if (window <= 0) {
            throw new IllegalArgumentException("-W must be positive: " + window);
        }
        if (!(percentile > 0 && percentile <= 100)) {
            throw new IllegalArgumentException("-R must be in (0, 100]: " + percentile);
        }
        sizes = sizes.clone();
    }

    /** Total bytes of one message: the sum of the -s entries. */
    public long messageSize() {
        long t = 0;
        for (final long s : sizes) {
            t += s;
        }
        return t;
    }

    /** True when a protocol-layer test sends and receives scatter/gather lists (-D iov). */
    public boolean iov() {
        return layout == Layout.IOV;
    }

    /** Effective -O. */
    public int maxOutstanding() {
        return outstanding == 0 ? test.defaultOutstanding() : outstanding;
    }

    @Override
    public long[] sizes() {
        return sizes.clone();
    }

    /** Parses a -s value: "8" or "16,48,8192". */
    public static long[] parseSizes(final String s) {
        final String[] parts = s.split(",");
        final long[] out = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Long.parseLong(parts[i].trim());
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException("bad message size '" + parts[i] + "' in -s " + s, e);
            }
        }
        return out;
    }

    /** Serialises for the control connection. */
    byte[] encode() {
        try {
            final ByteArrayOutputStream bos = new ByteArrayOutputStream();
            final DataOutputStream out = new DataOutputStream(bos);
            out.writeUTF(test.testName());
            out.writeInt(sizes.length);
            for (final long s : sizes) {
                out.writeLong(s);
            }
            out.writeLong(iterations);
            out.writeLong(warmup);
            out.writeUTF(layout.label());
            out.writeInt(outstanding);
            out.writeInt(window);
            out.writeDouble(percentile);
            out.writeUTF(transport);
            out.writeUTF(device);
            out.flush();
            return bos.toByteArray();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads what {@link #encode()} wrote; a malformed message gives IllegalArgumentException. */
    static PerfParams decode(final byte[] b) {
        try {
            final DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(b));
            final PerfTestKind test = PerfTestKind.byName(in.readUTF());
            final int n = in.readInt();
            if (n <= 0 || n > 1024) {
                throw new IllegalArgumentException("bad size count " + n);
            }
            final long[] sizes = new long[n];
            for (int i = 0; i < n; i++) {
                sizes[i] = in.readLong();
            }
            final PerfParams p = new PerfParams(test, sizes, in.readLong(), in.readLong(), Layout.parse(in.readUTF()),
                in.readInt(), in.readInt(), in.readDouble(), in.readUTF(), in.readUTF());
            if (in.available() != 0) {
                throw new IllegalArgumentException(in.available() + " trailing bytes");
            }
            return p;
        } catch (final IOException e) {
            throw new IllegalArgumentException("malformed test parameters from the client: " + e, e);
        }
    }
}
