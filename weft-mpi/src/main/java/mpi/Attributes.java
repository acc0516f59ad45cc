package mpi;

import java.util.HashMap;
import java.util.Map;

/**
 * The attributes of a communicator, window or datatype: the predefined keys' values (communicators) and the
 * user keys of {@code createKeyval} (one key space for the three).
 */
final class Attributes {
    private static final Map<Integer, Boolean> KEYVALS = new HashMap<>();
    private static int nextKeyval = 100;

    private final Map<Integer, Object> values = new HashMap<>();

    static synchronized int createKeyval() {
        final int k = nextKeyval++;
        KEYVALS.put(k, Boolean.TRUE);
        return k;
    }

    static synchronized void freeKeyval(final int keyval) throws MPIException {
        if (KEYVALS.remove(keyval) == null) {
            throw new MPIException(MPI.ERR_KEYVAL, "unknown attribute key " + keyval);
        }
    }

    private static synchronized void check(final int keyval) throws MPIException {
        if (!KEYVALS.containsKey(keyval)) {
            throw new MPIException(MPI.ERR_KEYVAL, "unknown attribute key " + keyval);
        }
    }

    void set(final int keyval, final Object value) throws MPIException {
        check(keyval);
        values.put(keyval, value);
    }

    Object get(final int keyval, final int jobSize) throws MPIException {
        return switch (keyval) {
            case MPI.TAG_UB -> Tags.TAG_UB;
            case MPI.HOST -> MPI.PROC_NULL;
            case MPI.IO -> MPI.ANY_SOURCE;
            case MPI.WTIME_IS_GLOBAL -> 0;
            case MPI.APPNUM -> 0;
            case MPI.UNIVERSE_SIZE -> jobSize;
            case MPI.LASTUSEDCODE -> MPI.ERR_LASTCODE;
            default -> getUser(keyval);
        };
    }

    /** A user attribute (no predefined key): its value, or null if unset. */
    Object getUser(final int keyval) throws MPIException {
        if (values.containsKey(keyval)) {
            return values.get(keyval); // also after freeKeyval: the objects that hold it keep it
        }
        check(keyval);
        return null;
    }

    void delete(final int keyval) throws MPIException {
        check(keyval);
        values.remove(keyval);
    }
}
