package weft.uct;

/**
 * Remote atomic operations. Post (non-fetching) operations are ADD/AND/OR/XOR and SWAP, which as a post is a
 * 64- or 32-bit atomic set (the old value is not returned); fetching ones are all six.
 */
public enum AtomicOp {
    ADD, AND, OR, XOR, SWAP, CSWAP;

    /** This op's bit in {@link InterfaceAttributes#atomic32Ops()} / {@code atomic64Ops()}. */
    public int bit() {
        return 1 << ordinal();
    }

    /** Bits for all post (non-fetching) ops. */
    public static final int POST_OPS = 0b11111;
    /** Bits for all ops. */
    public static final int ALL_OPS = 0b111111;

    /** True if this op may be posted (no result): every op but CSWAP, which needs a compare value. */
    public boolean postable() {
        return this != CSWAP;
    }

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
