package mpi;

import java.util.Arrays;

/**
 * An MPI datatype: a predefined one ({@link MPI#INT}, {@link MPI#DOUBLE}, ...) or one built from others
 * (contiguous, vector, indexed, struct, resized). A datatype describes where a message's bytes lie in a
 * buffer; derived types are sent and received in place, gathered and scattered piece by piece, with no
 * intermediate copy of the whole message.
 *
 * <p>As in Open MPI's Java bindings, sizes, extents and bounds are counted in elements of the type's
 * <em>base type</em> (the primitive type of the buffer: {@code int} for a vector of {@link MPI#INT}), and
 * the {@code H} constructors, {@link #createStruct} and {@link #createResized} take bytes. A struct's base
 * type is {@link MPI#BYTE}.
 *
 * <pre>{@code
 * // every other int of an int[]: 4 blocks of 1 with a stride of 2
 * Datatype evens = Datatype.createVector(4, 1, 2, MPI.INT);
 * evens.commit();
 * MPI.COMM_WORLD.send(data, 1, evens, 1, 0);   // sends data[0], data[2], data[4], data[6]
 * }</pre>
 */
public final class Datatype implements Freeable, Cloneable {
    // predefined type codes (also the reduction element kinds)
    static final int NULL = 0;
    static final int BYTE = 1;
    static final int CHAR = 2;
    static final int SHORT = 3;
    static final int BOOLEAN = 4;
    static final int INT = 5;
    static final int LONG = 6;
    static final int FLOAT = 7;
    static final int DOUBLE = 8;
    static final int PACKED = 9;
    static final int INT2 = 10;
    static final int SHORT_INT = 11;
    static final int LONG_INT = 12;
    static final int FLOAT_INT = 13;
    static final int DOUBLE_INT = 14;
    static final int FLOAT_COMPLEX = 15;
    static final int DOUBLE_COMPLEX = 16;
    /** Element kind of a struct mixing kinds: only user operations reduce it. */
    static final int MIXED = -1;

    /** The primitive type of the buffer (BYTE ... DOUBLE, BOOLEAN, PACKED) and its size in bytes. */
    final int baseType;
    final int baseSize;
    /** The reduction element: a predefined code, or MIXED. */
    final int element;
    final boolean predefined;
    /** Bytes of data in one element of this type. */
    final long size;
    final long lb;
    final long ub;
    final long trueLb;
    final long trueUb;
    /** The type map flattened to byte blocks in type-map order (adjacent blocks merged). */
    final long[] offsets;
    final long[] lengths;
    /** One block at offset 0 as long as the extent: count elements are count * size bytes in a row. */
    final boolean contiguous;
    /** Alignment of the type's most strictly aligned member: a struct's extent is padded to it. */
    int align = 1;
    /** How a derived type was made (null for a predefined one): what other data representations need. */
    Derivation derivation;
    /** The type as the external32 representation lays it out in a file, made on first use ({@link External32}). */
    volatile Datatype external32;
    private boolean committed;
    private boolean freed;
    private String name;
    private Attributes attributes;

    private Datatype(final int baseType, final int baseSize, final int element, final boolean predefined,
                     final long lb, final long ub, final long[] offsets, final long[] lengths, final String name) {
        this.baseType = baseType;
        this.baseSize = baseSize;
        this.element = element;
        this.predefined = predefined;
        this.lb = lb;
        this.ub = ub;
        this.offsets = offsets;
        this.lengths = lengths;
        long s = 0;
        long tl = Long.MAX_VALUE;
        long tu = Long.MIN_VALUE;
        for (int i = 0; i < offsets.length; i++) {
            s += lengths[i];
            tl = Math.min(tl, offsets[i]);
            tu = Math.max(tu, offsets[i] + lengths[i]);
        }
        this.size = s;
        this.trueLb = offsets.length == 0 ? 0 : tl;
        this.trueUb = offsets.length == 0 ? 0 : tu;
        this.contiguous = offsets.length == 0 && ub == lb
            || offsets.length == 1 && offsets[0] == 0 && lb == 0 && lengths[0] == ub;
        this.committed = predefined;
        this.name = name;
    }

    /** A predefined primitive type of {@code bytes} bytes. */
    static Datatype primitive(final int code, final int bytes, final String name) {
        return aligned(Math.max(bytes, 1), new Datatype(code, Math.max(bytes, 1), code, true, 0, bytes,
            bytes == 0 ? new long[0] : new long[] {0}, bytes == 0 ? new long[0] : new long[] {bytes}, name));
    }

    private static Datatype aligned(final int align, final Datatype t) {
        t.align = align;
        return t;
    }

    /** A predefined value-index pair, laid out as in C (the int at its alignment after the value). */
    static Datatype pair(final int code, final int valueBytes, final String name) {
        final int intOffset = Math.max(valueBytes, 4);
        final int extent = valueBytes == 8 ? 16 : 8;
        final long[] offsets = intOffset == valueBytes ? new long[] {0} : new long[] {0, intOffset};
        final long[] lengths = intOffset == valueBytes ? new long[] {valueBytes + 4L} : new long[] {valueBytes, 4};
        return aligned(intOffset, new Datatype(BYTE, 1, code, true, 0, extent, offsets, lengths, name));
    }

    /** This predefined type's data in a row from byte 0, aligned to nothing: its layout in an external32 file. */
    Datatype unpadded() {
        final long[] at = size == 0 ? new long[0] : new long[] {0};
        final long[] len = size == 0 ? new long[0] : new long[] {size};
        return new Datatype(baseType, baseSize, element, true, 0, size, at, len, name);
    }

    /** A predefined complex number: two values of {@code base}. */
    static Datatype complex(final int code, final Datatype base, final String name) {
        final long b = base.size;
        return aligned(base.align, new Datatype(base.baseType, base.baseSize, code, true, 0, 2 * b, new long[] {0},
            new long[] {2 * b}, name));
    }

    // ------------------------------------------------------------------ constructors of derived types

    /**
     * {@code count} copies of {@code oldType} side by side (MPI_TYPE_CONTIGUOUS). The base type is
     * {@code oldType}'s.
     */
    public static Datatype createContiguous(final int count, final Datatype oldType) throws MPIException {
        MPI.check();
        checkCount(count, "count");
        return derive(oldType, count, p -> {
            final Builder b = new Builder(p.of(oldType));
            b.place(0, count);
            return b.build();
        });
    }

    /**
     * {@code count} blocks of {@code blockLength} copies of {@code oldType}, block starts {@code stride}
     * elements of {@code oldType} apart (MPI_TYPE_VECTOR; the stride may be negative).
     */
    public static Datatype createVector(final int count, final int blockLength, final int stride,
                                        final Datatype oldType) throws MPIException {
        MPI.check();
        return derive(oldType, (long) count * blockLength,
            p -> vector(count, blockLength, stride * p.of(oldType).extent(), p.of(oldType)));
    }

    /** As {@link #createVector} with the stride in bytes (MPI_TYPE_CREATE_HVECTOR). */
    public static Datatype createHVector(final int count, final int blockLength, final int stride,
                                         final Datatype oldType) throws MPIException {
        MPI.check();
        return derive(oldType, (long) count * blockLength, p -> vector(count, blockLength, stride, p.of(oldType)));
    }

    private static Datatype vector(final int count, final int blockLength, final long strideBytes,
                                   final Datatype oldType) throws MPIException {
        checkCount(count, "count");
        checkCount(blockLength, "block length");
        final Builder b = new Builder(oldType);
        for (int i = 0; i < count; i++) {
            b.place(i * strideBytes, blockLength);
        }
        return b.build();
    }

    /**
     * Blocks of {@code blockLengths[i]} copies of {@code oldType} at {@code displacements[i]} elements of
     * {@code oldType} (MPI_TYPE_INDEXED).
     */
    public static Datatype createIndexed(final int[] blockLengths, final int[] displacements,
                                         final Datatype oldType) throws MPIException {
        MPI.check();
        final int[] lengths = copy(blockLengths);
        final int[] displs = copy(displacements);
        return derive(oldType, sum(lengths), p -> indexed(lengths, displs, p.of(oldType).extent(), p.of(oldType)));
    }

    /** As {@link #createIndexed} with displacements in bytes (MPI_TYPE_CREATE_HINDEXED). */
    public static Datatype createHIndexed(final int[] blockLengths, final int[] displacements,
                                          final Datatype oldType) throws MPIException {
        MPI.check();
        final int[] lengths = copy(blockLengths);
        final int[] displs = copy(displacements);
        return derive(oldType, sum(lengths), p -> indexed(lengths, displs, 1, p.of(oldType)));
    }

    private static Datatype indexed(final int[] blockLengths, final int[] displacements, final long unit,
                                    final Datatype oldType) throws MPIException {
        checkSameLength(blockLengths, displacements);
        final Builder b = new Builder(oldType);
        for (int i = 0; i < blockLengths.length; i++) {
            checkCount(blockLengths[i], "block length");
            b.place(displacements[i] * unit, blockLengths[i]);
        }
        return b.build();
    }

    /**
     * Blocks of {@code blockLengths[i]} copies of {@code types[i]} at {@code displacements[i]} bytes
     * (MPI_TYPE_CREATE_STRUCT). The base type is {@link MPI#BYTE}: use it with a {@code ByteBuffer}.
     */
    public static Datatype createStruct(final int[] blockLengths, final int[] displacements,
                                        final Datatype[] types) throws MPIException {
        MPI.check();
        checkSameLength(blockLengths, displacements);
        if (types == null || types.length != blockLengths.length) {
            throw new MPIException(MPI.ERR_ARG, "createStruct needs as many types as block lengths");
        }
        final int[] lengths = blockLengths.clone();
        final int[] displs = displacements.clone();
        final Datatype[] parts = types.clone();
        final long[] repeats = new long[lengths.length];
        for (int i = 0; i < lengths.length; i++) {
            repeats[i] = lengths[i];
        }
        return derive(parts, repeats, p -> struct(lengths, displs, parts, p));
    }

    private static Datatype struct(final int[] blockLengths, final int[] displacements, final Datatype[] types,
                                   final Derivation.Parts part) throws MPIException {
        final Builder b = new Builder(MPI.BYTE);
        int element = types.length == 0 ? BYTE : types[0].element;
        for (int i = 0; i < types.length; i++) {
            checkCount(blockLengths[i], "block length");
            final Datatype t = part.of(types[i]);
            t.checkUsable();
            b.setOld(t);
            b.place(displacements[i], blockLengths[i]);
            if (types[i].element != element) {
                element = MIXED;
            }
        }
        b.element = element;
        b.padToAlignment();
        return b.build();
    }

    /**
     * {@code oldType} with the lower bound {@code lb} and extent {@code extent}, both in bytes
     * (MPI_TYPE_CREATE_RESIZED): the stride of consecutive elements becomes {@code extent}.
     */
    public static Datatype createResized(final Datatype oldType, final int lb, final int extent)
        throws MPIException {
        MPI.check();
        return derive(oldType, 1, p -> resized(p.of(oldType), lb, extent));
    }

    private static Datatype resized(final Datatype oldType, final int lb, final int extent) throws MPIException {
        oldType.checkUsable();
        if (extent < 0) {
            throw new MPIException(MPI.ERR_ARG, "negative extent " + extent);
        }
        return aligned(oldType.align, new Datatype(oldType.baseType, oldType.baseSize, oldType.element, false, lb,
            (long) lb + extent, oldType.offsets, oldType.lengths, null));
    }

    /** Builds a derived type from its old types as they are, and keeps how (see {@link Derivation}). */
    private static Datatype derive(final Datatype[] parts, final long[] repeats, final Derivation.Recipe recipe)
        throws MPIException {
        final Datatype t = recipe.build(old -> old);
        t.derivation = new Derivation(parts, repeats, recipe);
        return t;
    }

    private static Datatype derive(final Datatype oldType, final long repeats, final Derivation.Recipe recipe)
        throws MPIException {
        return derive(new Datatype[] {oldType}, new long[] {repeats}, recipe);
    }

    /** A copy of a caller's array (the type must not change when the caller reuses it); null stays null. */
    private static int[] copy(final int[] a) {
        return a == null ? null : a.clone();
    }

    private static long sum(final int[] a) {
        long s = 0;
        for (int i = 0; a != null && i < a.length; i++) {
            s += a[i];
        }
        return s;
    }

    // ------------------------------------------------------------------ queries

    /** The lower bound, in elements of the base type. */
    public int getLb() throws MPIException {
        MPI.check();
        return (int) (lb / baseSize);
    }

    /** The extent (the stride between consecutive elements of this type), in elements of the base type. */
    public int getExtent() throws MPIException {
        MPI.check();
        return (int) (extent() / baseSize);
    }

    /** The lower bound of the data itself (ignoring resizing), in elements of the base type. */
    public int getTrueLb() throws MPIException {
        MPI.check();
        return (int) (trueLb / baseSize);
    }

    /** The extent of the data itself (ignoring resizing), in elements of the base type. */
    public int getTrueExtent() throws MPIException {
        MPI.check();
        return (int) ((trueUb - trueLb) / baseSize);
    }

    /** The number of base-type elements of data in one element of this type. */
    public int getSize() throws MPIException {
        MPI.check();
        return (int) (size / baseSize);
    }

    /** Makes the type usable in communication (MPI_TYPE_COMMIT). */
    public void commit() throws MPIException {
        MPI.check();
        checkNotFreed();
        committed = true;
    }

    /** Releases a derived type; a predefined one cannot be freed. */
    public void free() throws MPIException {
        MPI.check();
        if (predefined) {
            throw new MPIException(MPI.ERR_TYPE, "a predefined datatype (" + getName() + ") cannot be freed");
        }
        freed = true;
    }

    /** True for {@link MPI#DATATYPE_NULL} and freed types. */
    public boolean isNull() {
        return element == NULL || freed;
    }

    /** A copy of this type, committed if this one is (MPI_TYPE_DUP). */
    public Datatype dup() throws MPIException {
        MPI.check();
        checkNotFreed();
        final Datatype d = aligned(align, new Datatype(baseType, baseSize, element, false, lb, ub, offsets, lengths,
            name));
        d.committed = committed;
        d.derivation = new Derivation(new Datatype[] {this}, new long[] {1}, p -> p.of(this));
        return d;
    }

    @Override
    public Datatype clone() {
        try {
            return dup();
        } catch (final MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A new attribute key. */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval();
    }

    /** Frees an attribute key. */
    public static void freeKeyval(final int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(keyval);
    }

    /** Stores {@code value} under a key from {@link #createKeyval}. */
    public void setAttr(final int keyval, final Object value) throws MPIException {
        MPI.check();
        attributes().set(keyval, value);
    }

    /** The value of a user attribute, or null if unset. */
    public Object getAttr(final int keyval) throws MPIException {
        MPI.check();
        return attributes().getUser(keyval);
    }

    /** Removes an attribute. */
    public void deleteAttr(final int keyval) throws MPIException {
        MPI.check();
        attributes().delete(keyval);
    }

    private synchronized Attributes attributes() {
        if (attributes == null) {
            attributes = new Attributes();
        }
        return attributes;
    }

    /** Sets the name printed for this type. */
    public void setName(final String name) throws MPIException {
        MPI.check();
        this.name = name;
    }

    /** The type's name ("" for an unnamed derived type). */
    public String getName() throws MPIException {
        return name == null ? "" : name;
    }

    @Override
    public String toString() {
        return "Datatype[" + (name == null ? "derived" : name) + ", size " + size + " B, extent " + extent() + " B, "
            + offsets.length + " block(s)]";
    }

    // ------------------------------------------------------------------ internal

    long extent() {
        return ub - lb;
    }

    /** Checks that the type may be used in communication: not null, not freed, committed. */
    void checkUsable() throws MPIException {
        checkNotFreed();
        if (element == NULL) {
            throw new MPIException(MPI.ERR_TYPE, "MPI.DATATYPE_NULL cannot describe data");
        }
        // an uncommitted derived type is used as it is: Open MPI's bindings do not refuse it either
    }

    private void checkNotFreed() throws MPIException {
        if (freed) {
            throw new MPIException(MPI.ERR_TYPE, "the datatype was freed");
        }
    }

    private static void checkCount(final int n, final String what) throws MPIException {
        if (n < 0) {
            throw new MPIException(MPI.ERR_COUNT, "negative " + what + " " + n);
        }
    }

    private static void checkSameLength(final int[] blockLengths, final int[] displacements) throws MPIException {
        if (blockLengths == null || displacements == null || blockLengths.length != displacements.length) {
            throw new MPIException(MPI.ERR_ARG, "block lengths and displacements must be arrays of the same length");
        }
    }

    /** Places copies of an old type and collects the flattened blocks and bounds of the new one. */
    private static final class Builder {
        private final int baseType;
        private final int baseSize;
        int element;
        private Datatype old;
        long oldExtent;
        private long[] offs = new long[8];
        private long[] lens = new long[8];
        private int n;
        private long lb = Long.MAX_VALUE;
        private long ub = Long.MIN_VALUE;

        Builder(final Datatype oldType) throws MPIException {
            oldType.checkNotFreed();
            if (oldType.element == NULL) {
                throw new MPIException(MPI.ERR_TYPE, "MPI.DATATYPE_NULL cannot be a component of a datatype");
            }
            this.baseType = oldType.baseType;
            this.baseSize = oldType.baseSize;
            this.element = oldType.element;
            setOld(oldType);
        }

        private int align = 1;

        void setOld(final Datatype t) {
            old = t;
            oldExtent = t.extent();
            align = Math.max(align, t.align);
        }

        /** Pads the extent to the strictest member alignment, as C compilers lay structs out. */
        void padToAlignment() {
            if (lb <= ub) {
                final long ext = ub - lb;
                ub = lb + (ext + align - 1) / align * align;
            }
        }

        /** {@code copies} copies of the old type, the first at byte displacement {@code disp}. */
        void place(final long disp, final int copies) throws MPIException {
            for (int c = 0; c < copies; c++) {
                final long at = disp + c * oldExtent;
                for (int i = 0; i < old.offsets.length; i++) {
                    add(at + old.offsets[i], old.lengths[i]);
                }
            }
            if (copies > 0) {
                lb = Math.min(lb, disp + old.lb);
                ub = Math.max(ub, disp + (copies - 1) * oldExtent + old.ub);
            }
        }

        private void add(final long off, final long len) throws MPIException {
            if (len == 0) {
                return;
            }
            if (n > 0 && offs[n - 1] + lens[n - 1] == off) {
                lens[n - 1] += len;
                return;
            }
            if (n == offs.length) {
                if (n >= 1 << 26) {
                    throw new MPIException(MPI.ERR_TYPE, "datatype has too many separate blocks (" + n + ")");
                }
                offs = Arrays.copyOf(offs, n * 2);
                lens = Arrays.copyOf(lens, n * 2);
            }
            offs[n] = off;
            lens[n] = len;
            n++;
        }

        Datatype build() {
            if (lb > ub) {
                lb = 0;
                ub = 0;
            }
            return aligned(align, new Datatype(baseType, baseSize, element, false, lb, ub, Arrays.copyOf(offs, n),
                Arrays.copyOf(lens, n), null));
        }
    }
}
