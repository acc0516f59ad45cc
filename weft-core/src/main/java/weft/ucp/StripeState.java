package weft.ucp;

/**
 * Where a put, get or rendezvous transfer stands on its rails ({@link Rails}, {@link Stripes}): the one rail
 * chosen, or the cursors of {@link #count} stripes. The cursor arrays grow once per pooled request.
 */
final class StripeState {
    /** The one rail a whole operation went to (when {@link #count} is 0). */
    int rail;
    /** Stripes in use (0: not striped). */
    int count;
    /** Per stripe: the next byte to issue and the end of its share. */
    long[] pos;
    long[] end;

    void reset() {
        rail = count = 0;
    }

    boolean isPristine() {
        return rail == 0 && count == 0;
    }
}
