package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A C-like struct laid over a {@code ByteBuffer}, with its MPI datatype (as in Open MPI's bindings): a
 * subclass adds its fields in its constructor ({@link #addInt()}, {@link #addDouble(int)}, ...; each returns
 * the field's offset, {@link #setOffset} aligns the next one) and defines a {@link Data} subclass with
 * typed accessors; {@link #getType()} is the datatype to send elements with.
 *
 * <pre>{@code
 * class Particle extends Struct {
 *     final int x = addDouble(), id = addInt();
 *     protected Data newData() { return new Data(); }
 *     class Data extends Struct.Data {
 *         double x() { return getDouble(x); }
 *         void x(double v) { putDouble(x, v); }
 *     }
 * }
 * Particle p = new Particle();
 * ByteBuffer buf = MPI.newByteBuffer(p.getExtent() * 10);
 * ((Particle.Data) p.getData(buf, 3)).x(1.5);
 * comm.send(buf, 10, p.getType(), 1, 0);
 * }</pre>
 */
public abstract class Struct {
    private int extent;
    private final List<int[]> fieldSpecs = new ArrayList<>();
    private final List<Datatype> fieldTypes = new ArrayList<>();
    private Datatype datatype;

    /** A struct with no fields yet. */
    protected Struct() {
    }

    private void commit() throws MPIException {
        if (datatype == null) {
            final int n = fieldTypes.size();
            final int[] lengths = new int[n];
            final int[] offsets = new int[n];
            for (int i = 0; i < n; i++) {
                offsets[i] = fieldSpecs.get(i)[0];
                lengths[i] = fieldSpecs.get(i)[1];
            }
            final Datatype t = Datatype.createStruct(lengths, offsets, fieldTypes.toArray(new Datatype[0]));
            t.commit();
            datatype = t;
            extent = t.getExtent();
        }
    }

    final int extentBytes() {
        return extent;
    }

    /** The extent of one element, in bytes (with the padding of its datatype). */
    public final int getExtent() throws MPIException {
        commit();
        return extent;
    }

    /** The datatype of one element. */
    public final Datatype getType() throws MPIException {
        commit();
        return datatype;
    }

    /** A new accessor object of the subclass's {@link Data} type. */
    protected abstract Data newData();

    @SuppressWarnings("unchecked")
    final <T extends Data> T newData(final ByteBuffer buffer, final int offset) {
        final Data d = newData();
        d.buffer = buffer;
        d.offset = offset;
        return (T) d;
    }

    /** The accessor of element 0 of {@code buffer}. */
    public final <T extends Data> T getData(final ByteBuffer buffer) throws MPIException {
        commit();
        return newData(buffer, 0);
    }

    /** The accessor of element {@code index} of {@code buffer}. */
    public final <T extends Data> T getData(final ByteBuffer buffer, final int index) throws MPIException {
        commit();
        return newData(buffer, index * extent);
    }

    /** The accessor of element 0 of {@code array} (native byte order). */
    public final <T extends Data> T getData(final byte[] array) throws MPIException {
        return getData(ByteBuffer.wrap(array).order(ByteOrder.nativeOrder()));
    }

    /** The accessor of element {@code index} of {@code array} (native byte order). */
    public final <T extends Data> T getData(final byte[] array, final int index) throws MPIException {
        return getData(ByteBuffer.wrap(array).order(ByteOrder.nativeOrder()), index);
    }

    final int addField(final Datatype type, final int typeExtent, final int length) {
        if (datatype != null) {
            throw new IllegalStateException("the struct's datatype was already made: add fields in the constructor");
        }
        final int offset = extent;
        extent += typeExtent * length;
        fieldSpecs.add(new int[] {offset, length});
        fieldTypes.add(type);
        return offset;
    }

    /** Moves the next field to {@code offset} (not before the fields added so far). */
    public final Struct setOffset(final int offset) {
        if (datatype != null) {
            throw new IllegalStateException("the struct's datatype was already made: add fields in the constructor");
        }
        if (offset < extent) {
            throw new IllegalArgumentException("The offset must be greater or equal to the accumulated extent.");
        }
        extent = offset;
        return this;
    }

    /** Adds one {@code byte} field; returns its offset. */
    public final int addByte() {
        return addByte(1);
    }

    /** Adds an array of {@code length} {@code byte}s; returns its offset. */
    public final int addByte(final int length) {
        return addField(MPI.BYTE, 1, length);
    }

    /** Adds one {@code char} field; returns its offset. */
    public final int addChar() {
        return addChar(1);
    }

    /** Adds an array of {@code length} {@code char}s; returns its offset. */
    public final int addChar(final int length) {
        return addField(MPI.CHAR, 2, length);
    }

    /** Adds one {@code short} field; returns its offset. */
    public final int addShort() {
        return addShort(1);
    }

    /** Adds an array of {@code length} {@code short}s; returns its offset. */
    public final int addShort(final int length) {
        return addField(MPI.SHORT, 2, length);
    }

    /** Adds one {@code int} field; returns its offset. */
    public final int addInt() {
        return addInt(1);
    }

    /** Adds an array of {@code length} {@code int}s; returns its offset. */
    public final int addInt(final int length) {
        return addField(MPI.INT, 4, length);
    }

    /** Adds one {@code long} field; returns its offset. */
    public final int addLong() {
        return addLong(1);
    }

    /** Adds an array of {@code length} {@code long}s; returns its offset. */
    public final int addLong(final int length) {
        return addField(MPI.LONG, 8, length);
    }

    /** Adds one {@code float} field; returns its offset. */
    public final int addFloat() {
        return addFloat(1);
    }

    /** Adds an array of {@code length} {@code float}s; returns its offset. */
    public final int addFloat(final int length) {
        return addField(MPI.FLOAT, 4, length);
    }

    /** Adds one {@code double} field; returns its offset. */
    public final int addDouble() {
        return addDouble(1);
    }

    /** Adds an array of {@code length} {@code double}s; returns its offset. */
    public final int addDouble(final int length) {
        return addField(MPI.DOUBLE, 8, length);
    }

    /** Adds a nested struct field; returns its offset. */
    public final int addStruct(final Struct struct) throws MPIException {
        return addStruct(struct, 1);
    }

    /** Adds an array of {@code length} nested structs; returns its offset. */
    public final int addStruct(final Struct struct, final int length) throws MPIException {
        return addField(struct.getType(), struct.getExtent(), length);
    }

    /** Adds a field of any datatype; returns its offset. */
    public final int addData(final Datatype type) throws MPIException {
        return addData(type, 1);
    }

    /** Adds an array of {@code length} elements of any datatype; returns its offset. */
    public final int addData(final Datatype type, final int length) throws MPIException {
        return addField(type, Math.toIntExact(type.extent()), length);
    }

    /** Typed access to one element of a buffer; subclasses add accessors named after their fields. */
    public abstract class Data {
        private ByteBuffer buffer;
        private int offset;

        /** A view of the element's bytes. */
        public final ByteBuffer getBuffer() {
            return offset == 0 ? buffer : MPI.slice(buffer, offset);
        }

        /** The {@code byte} at {@code field}. */
        protected final byte getByte(final int field) {
            return buffer.get(offset + field);
        }

        /** Element {@code index} of the {@code byte} array at {@code field}. */
        protected final byte getByte(final int field, final int index) {
            return buffer.get(offset + field + index * 1);
        }

        /** Stores {@code v} at {@code field}. */
        protected final void putByte(final int field, final byte v) {
            buffer.put(offset + field, v);
        }

        /** Stores {@code v} as element {@code index} of the array at {@code field}. */
        protected final void putByte(final int field, final int index, final byte v) {
            buffer.put(offset + field + index * 1, v);
        }

        /** The {@code char} at {@code field}. */
        protected final char getChar(final int field) {
            return buffer.getChar(offset + field);
        }

        /** Element {@code index} of the {@code char} array at {@code field}. */
        protected final char getChar(final int field, final int index) {
            return buffer.getChar(offset + field + index * 2);
        }

        /** Stores {@code v} at {@code field}. */
        protected final void putChar(final int field, final char v) {
            buffer.putChar(offset + field, v);
        }

        /** Stores {@code v} as element {@code index} of the array at {@code field}. */
        protected final void putChar(final int field, final int index, final char v) {
            buffer.putChar(offset + field + index * 2, v);
        }

        /** The {@code short} at {@code field}. */
        protected final short getShort(final int field) {
            return buffer.getShort(offset + field);
        }

        /** Element {@code index} of the {@code short} array at {@code field}. */
        protected final short getShort(final int field, final int index) {
            return buffer.getShort(offset + field + index * 2);
        }

        /** Stores {@code v} at {@code field}. */
        protected final void putShort(final int field, final short v) {
            buffer.putShort(offset + field, v);
        }

        /** Stores {@code v} as element {@code index} of the array at {@code field}. */
        protected final void putShort(final int field, final int index, final short v) {
            buffer.putShort(offset + field + index * 2, v);
        }

        /** The {@code int} at {@code field}. */
        protected final int getInt(final int field) {
            return buffer.getInt(offset + field);
        }

        /** Element {@code index} of the {@code int} array at {@code field}. */
        protected final int getInt(final int field, final int index) {
            return buffer.getInt(offset + field + index * 4);
        }

        /** Stores {@code v} at {@code field}. */
        protected final void putInt(final int field, final int v) {
            buffer.putInt(offset + field, v);
        }

        /** Stores {@code v} as element {@code index} of the array at {@code field}. */
        protected final void putInt(final int field, final int index, final int v) {
            buffer.putInt(offset + field + index * 4, v);
        }

        /** The {@code long} at {@code field}. */
        protected final long getLong(final int field) {
            return buffer.getLong(offset + field);
        }

        /** Element {@code index} of the {@code long} array at {@code field}. */
        protected final long getLong(final int field, final int index) {
            return buffer.getLong(offset + field + index * 8);
        }

        /** Stores {@code v} at {@code field}. */
        protected final void putLong(final int field, final long v) {
            buffer.putLong(offset + field, v);
        }

        /** Stores {@code v} as element {@code index} of the array at {@code field}. */
        protected final void putLong(final int field, final int index, final long v) {
            buffer.putLong(offset + field + index * 8, v);
        }

        /** The {@code float} at {@code field}. */
        protected final float getFloat(final int field) {
            return buffer.getFloat(offset + field);
        }

        /** Element {@code index} of the {@code float} array at {@code field}. */
        protected final float getFloat(final int field, final int index) {
            return buffer.getFloat(offset + field + index * 4);
        }

        /** Stores {@code v} at {@code field}. */
        protected final void putFloat(final int field, final float v) {
            buffer.putFloat(offset + field, v);
        }

        /** Stores {@code v} as element {@code index} of the array at {@code field}. */
        protected final void putFloat(final int field, final int index, final float v) {
            buffer.putFloat(offset + field + index * 4, v);
        }

        /** The {@code double} at {@code field}. */
        protected final double getDouble(final int field) {
            return buffer.getDouble(offset + field);
        }

        /** Element {@code index} of the {@code double} array at {@code field}. */
        protected final double getDouble(final int field, final int index) {
            return buffer.getDouble(offset + field + index * 8);
        }

        /** Stores {@code v} at {@code field}. */
        protected final void putDouble(final int field, final double v) {
            buffer.putDouble(offset + field, v);
        }

        /** Stores {@code v} as element {@code index} of the array at {@code field}. */
        protected final void putDouble(final int field, final int index, final double v) {
            buffer.putDouble(offset + field + index * 8, v);
        }

        /** The accessor of the nested struct at {@code field}. */
        protected final <S extends Struct, D extends Struct.Data> D getData(final S struct, final int field) {
            return ((Struct) struct).newData(buffer, offset + field);
        }

        /** The accessor of element {@code index} of the nested struct array at {@code field}. */
        protected final <S extends Struct, D extends Struct.Data> D getData(final S struct, final int field,
                                                                            final int index) {
            final Struct st = struct;
            return st.newData(buffer, offset + field + index * st.extentBytes());
        }

        /** A view of the bytes of the field at {@code field}. */
        protected final ByteBuffer getBuffer(final Datatype type, final int field) {
            final int position = offset + field;
            return position == 0 ? buffer : MPI.slice(buffer, position);
        }

        /** A view of the bytes of element {@code index} of the field array at {@code field}. */
        protected final ByteBuffer getBuffer(final Datatype type, final int field, final int index) {
            final int position = offset + field + index * Math.toIntExact(type.extent());
            return position == 0 ? buffer : MPI.slice(buffer, position);
        }
    }
}
