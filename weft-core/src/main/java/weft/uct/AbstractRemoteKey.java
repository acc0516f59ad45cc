package weft.uct;

/**
 * The part of an unpacked remote key every transport has: the range {@code [base, base + length)}
 * of the peer's memory it grants.
 */
public abstract class AbstractRemoteKey implements RemoteKey {
    private final long base;
    private final long length;

    protected AbstractRemoteKey(final long base, final long length) {
        this.base = base;
        this.length = length;
    }

    @Override
    public final long base() {
        return base;
    }

    @Override
    public final long length() {
        return length;
    }
}
