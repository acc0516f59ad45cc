package weft.uct.tcp;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Ids of accepted connections that ended here, kept for as long as their connector could still come back
 * with them ({@code retainNs}: its fault timeout, the time to notice the break and a handshake, with margin).
 * A connector that broke during its first handshake asks to resume with its id and, when the acceptor does
 * not know it, starts afresh; an id found here was known and ended (its requests may have been served), so
 * that connector is refused instead of served twice. Ids are random per connecting interface
 * ({@link TcpInterface#newConnectionId}), so a stranger's id is not mistaken for one.
 *
 * <p>However many connections end within one retention period, each is remembered, up to {@link #CAP} (a
 * churn no job of this size reaches; the memory stays bounded against a peer that opens and ends
 * connections in a loop). Past it the oldest is forgotten early, and until the retention period has passed
 * since then {@link #mayHaveRetired} answers yes for every unknown id: a connector then fails with an error
 * rather than risk being served twice. Cold path (connection ends and handshakes), single threaded.
 */
final class TcpRetiredIds {
    /** Most ids remembered at once. */
    static final int CAP = 65_536;
    private final long retainNs;
    private final LongSupplier clock;
    /** id to the time it ended, oldest first. */
    private final LinkedHashMap<Long, Long> ids = new LinkedHashMap<>();
    private long forgotEarlyAt;
    private long forgotEarly;

    TcpRetiredIds(final long retainNs, final LongSupplier clock) {
        this.retainNs = retainNs;
        this.clock = clock;
    }

    void add(final long id) {
        final long now = clock.getAsLong();
        expire(now);
        if (ids.size() == CAP) {
            final Iterator<Long> oldest = ids.keySet().iterator();
            oldest.next();
            oldest.remove();
            forgotEarly++;
            forgotEarlyAt = now;
        }
        ids.put(id, now);
    }

    /** True if connection {@code id} ended here within the retention period. */
    boolean contains(final long id) {
        expire(clock.getAsLong());
        return ids.containsKey(id);
    }

    /** {@link #contains}, or an id may have been forgotten early (past {@link #CAP}) in the retention period. */
    boolean mayHaveRetired(final long id) {
        return contains(id) || forgotEarly > 0 && clock.getAsLong() - forgotEarlyAt < retainNs;
    }

    /** Ids remembered now. */
    int size() {
        expire(clock.getAsLong());
        return ids.size();
    }

    /** Ids forgotten before their retention period ended (the churn passed {@link #CAP}). */
    long forgottenEarly() {
        return forgotEarly;
    }

    private void expire(final long now) {
        final Iterator<Map.Entry<Long, Long>> it = ids.entrySet().iterator();
        while (it.hasNext() && now - it.next().getValue() >= retainNs) {
            it.remove();
        }
    }
}
