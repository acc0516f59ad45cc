package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.HashMap;
import java.util.Map;

/**
 * A job of one PE: what a program started without any launcher gets. Put and get work on a local
 * map; commit, fence and barrier return at once.
 */
final class SingletonBootstrap implements Bootstrap {
    private final Map<String, byte[]> values = new HashMap<>();
    private final JobLayout layout = new JobLayout(0, 1, 0, 1, 0, "singleton-" + ProcessHandle.current().pid());
    private boolean closed;

    @Override
    public String name() {
        return "singleton";
    }

    @Override
    public JobLayout layout() {
        return layout;
    }

    @Override
    public boolean overwritesKeys() {
        return true;
    }

    @Override
    public void put(final String key, final byte[] value) {
        checkOpen();
        KvProtocol.keyBytes(key);
        values.put(key, value.clone());
    }

    @Override
    public void commit() {
        checkOpen();
    }

    @Override
    public void fence() {
        checkOpen();
    }

    @Override
    public byte[] get(final int rank, final String key) {
        checkOpen();
        if (rank != 0) {
            throw new WeftException(Status.INVALID_PARAM, "rank " + rank + " is outside the job (size 1)");
        }
        final byte[] v = values.get(key);
        if (v == null) {
            throw TcpBootstrap.missing(rank, key);
        }
        return v.clone();
    }

    private void checkOpen() {
        if (closed) {
            throw new WeftException(Status.CLOSED, "bootstrap is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
