package weft.ucp;

import weft.ucs.Status;

import java.util.Arrays;

/**
 * The requests a peer names by id (one table per worker): sync sends waiting for their ack, rendezvous
 * sends and receives, emulated atomics waiting for their reply. An id is {@code slot | generation << 32},
 * so an answer for a request that completed (its slot reused) names nothing; lookups are an array index.
 */
final class InflightTable {
    private final Worker worker;
    private Request[] requests = new Request[64];
    private int[] generation = new int[64];
    private int[] free = new int[64];
    private int freeCount;
    private int high;

    InflightTable(final Worker worker) {
        this.worker = worker;
    }

    /** Gives {@code r} an id a peer can name it by ({@link Request#id}), released when it completes. */
    long register(final Request r) {
        r.wide = true;
        final int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            if (high == requests.length) {
                requests = Arrays.copyOf(requests, high * 2);
                generation = Arrays.copyOf(generation, high * 2);
                free = Arrays.copyOf(free, high * 2);
            }
            slot = high++;
        }
        requests[slot] = r;
        // 30 generation bits: ids stay positive and below AmId.RTR_ANY_ORDER (a flag beside an id on the wire)
        r.id = slot | (long) (generation[slot] & 0x3FFF_FFFF) << 32;
        return r.id;
    }

    /** The request a peer named, or null (completed since, or an id the peer made up). */
    Request byId(final long id) {
        final int slot = (int) id; // the low 32 bits: negative for ids a peer made up
        if (id < 0 || slot < 0 || slot >= high) {
            return null;
        }
        final Request r = requests[slot];
        return r != null && r.id == id ? r : null;
    }

    /**
     * The request a control message ({@link weft.ucp.wire.ControlMessage}) names, or null: a message too
     * short is counted as malformed control ({@code what} names it in the log), an unknown id is ignored.
     */
    Request named(final java.lang.foreign.MemorySegment data, final long off, final long len, final String what) {
        if (!weft.ucp.wire.ControlMessage.fits(len)) {
            worker.control.dropMalformed(what, len);
            return null;
        }
        return byId(weft.ucp.wire.ControlMessage.id(data, off));
    }

    /** {@code r} completed: its id names nothing any more. */
    void release(final Request r) {
        final int slot = (int) r.id;
        if (slot >= 0 && slot < high && requests[slot] == r) {
            requests[slot] = null;
            generation[slot]++;
            free[freeCount++] = slot;
        }
        r.id = -1;
    }

    /** Completes every request of {@code ep} with {@code st}. */
    void fail(final Endpoint ep, final Status st) {
        for (int i = 0; i < high; i++) {
            final Request r = requests[i];
            // zero-copy pieces complete a request when they fail, unless they are all done (a sync send
            // waiting for its ack)
            if (r != null && r.ep == ep && (!r.zdata || (r.kind == Request.SEND && r.localDone))) {
                worker.complete(r, st);
            }
        }
    }

    /** True while a request of {@code ep} waits for its peer. */
    boolean has(final Endpoint ep) {
        for (int i = 0; i < high; i++) {
            final Request r = requests[i];
            if (r != null && r.ep == ep) {
                return true;
            }
        }
        return false;
    }
}
