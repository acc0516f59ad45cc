package weft.uct;

/** Remote atomic operations. Post operations are ADD/AND/OR/XOR; fetch adds SWAP and CSWAP. */
public enum AtomicOp {
    ADD, AND, OR, XOR, SWAP, CSWAP;

    /** This op's bit in {@link InterfaceAttributes#atomic32Ops()} / {@code atomic64Ops()}. */
    public int bit() {
        return 1 << ordinal();
    }

    /** Bits for all post (non-fetching) ops. */
    public static final int POST_OPS = 0b1111;
    /** Bits for all ops. */
    public static final int ALL_OPS = 0b111111;

    /** Applies this op to {@code old} (CSWAP handled by callers: it needs the compare value). */
    public long apply64(final long old, final long value) {
        return switch (this) {
            case ADD -> old + value;
            case AND -> old & value;
            case OR -> old | value;
            case XOR -> old ^ value;
            case SWAP -> value;
            case CSWAP -> throw new IllegalArgumentException("CSWAP needs a compare value");
        };
    }

    public int apply32(final int old, final int value) {
        return (int) apply64(old, value);
    }
}
