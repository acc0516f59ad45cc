package weft.uct.tcp;

/**
 * Ids of accepted connections that ended here, the last {@link #CAP}: a connector that broke during its
 * first handshake asks to resume with its id and, when the acceptor does not know it, starts afresh; an id
 * found here was known and ended (its requests may have been served), so that connector is refused instead
 * of served twice. Ids are random per connecting interface ({@link TcpInterface#newConnectionId}), so a
 * stranger's id is not mistaken for one. Grows by doubling up to {@link #CAP} (8 KiB), then overwrites the
 * oldest. Single threaded (progress).
 */
final class TcpRetiredIds {
    static final int CAP = 1024;
    private long[] ids = new long[0];
    private int next;
    private int count;

    void add(final long id) {
        if (count == ids.length && count < CAP) {
            ids = java.util.Arrays.copyOf(ids, Math.max(16, 2 * count)); // full and in order: next was 0
            next = count;
        }
        ids[next] = id;
        next = (next + 1) % ids.length;
        count = Math.min(count + 1, ids.length);
    }

    boolean contains(final long id) {
        for (int i = 0; i < count; i++) {
            if (ids[i] == id) {
                return true;
            }
        }
        return false;
    }
}
