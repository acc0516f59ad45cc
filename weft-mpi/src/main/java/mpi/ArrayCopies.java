package mpi;

import java.nio.ByteBuffer;

/** Copies between a byte buffer and an array of a base type (the array form of a user function). */
final class ArrayCopies {
    private ArrayCopies() {
    }

    static Object read(final ByteBuffer b, final int baseType, final int n) {
        return switch (baseType) {
            case Datatype.CHAR -> {
                final char[] a = new char[n];
                b.asCharBuffer().get(a);
                yield a;
            }
            case Datatype.SHORT -> {
                final short[] a = new short[n];
                b.asShortBuffer().get(a);
                yield a;
            }
            case Datatype.INT -> {
                final int[] a = new int[n];
                b.asIntBuffer().get(a);
                yield a;
            }
            case Datatype.LONG -> {
                final long[] a = new long[n];
                b.asLongBuffer().get(a);
                yield a;
            }
            case Datatype.FLOAT -> {
                final float[] a = new float[n];
                b.asFloatBuffer().get(a);
                yield a;
            }
            case Datatype.DOUBLE -> {
                final double[] a = new double[n];
                b.asDoubleBuffer().get(a);
                yield a;
            }
            case Datatype.BOOLEAN -> {
                final boolean[] a = new boolean[n];
                for (int i = 0; i < n; i++) {
                    a[i] = b.get(b.position() + i) != 0;
                }
                yield a;
            }
            default -> {
                final byte[] a = new byte[n];
                b.get(a);
                yield a;
            }
        };
    }

    static void write(final Object a, final ByteBuffer b, final int baseType) {
        switch (a) {
            case char[] x -> b.asCharBuffer().put(x);
            case short[] x -> b.asShortBuffer().put(x);
            case int[] x -> b.asIntBuffer().put(x);
            case long[] x -> b.asLongBuffer().put(x);
            case float[] x -> b.asFloatBuffer().put(x);
            case double[] x -> b.asDoubleBuffer().put(x);
            case boolean[] x -> {
                for (int i = 0; i < x.length; i++) {
                    b.put(b.position() + i, (byte) (x[i] ? 1 : 0));
                }
            }
            case byte[] x -> b.put(x);
            default -> throw new IllegalArgumentException("not an array of a base type: " + a.getClass());
        }
    }
}
