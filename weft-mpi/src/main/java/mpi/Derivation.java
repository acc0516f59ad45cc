package mpi;

/**
 * How a derived datatype was made from others, kept for data representations other than native
 * ({@link External32}): one element of the type is {@code parts[i]} repeated {@code repeats[i]} times, in
 * this order (its type signature, the parts' own signatures spelled out), and {@code recipe} makes the type
 * again from other component types, with the same counts, byte displacements and bounds, and strides and
 * displacements in elements scaled by the other components' extents.
 */
record Derivation(Datatype[] parts, long[] repeats, Recipe recipe) {
    /** A type constructor with its arguments, to apply to components {@code part} gives for the old types. */
    @FunctionalInterface
    interface Recipe {
        Datatype build(Parts part) throws MPIException;
    }

    /** The component to build with in place of an old type. */
    @FunctionalInterface
    interface Parts {
        Datatype of(Datatype old) throws MPIException;
    }
}
