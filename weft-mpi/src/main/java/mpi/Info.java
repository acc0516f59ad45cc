package mpi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Hints given to MPI calls (MPI_Info): an ordered set of string keys and values. */
public final class Info implements Freeable, Cloneable {
    private final Map<String, String> entries = new LinkedHashMap<>();
    private final boolean constant;

    /** An empty, modifiable info object. */
    public Info() throws MPIException {
        this(false);
    }

    private Info(final boolean constant) {
        this.constant = constant;
    }

    static Info predefined() {
        return new Info(true);
    }

    /** Sets {@code key} to {@code value}. */
    public void set(final String key, final String value) throws MPIException {
        checkModifiable();
        if (key == null || key.isEmpty() || key.length() > MPI.MAX_INFO_KEY) {
            throw new MPIException(MPI.ERR_INFO_KEY, "an info key must have 1 to " + MPI.MAX_INFO_KEY + " characters");
        }
        if (value == null || value.length() > MPI.MAX_INFO_VAL) {
            throw new MPIException(MPI.ERR_INFO_VALUE, "an info value must have at most " + MPI.MAX_INFO_VAL
                + " characters");
        }
        entries.put(key, value);
    }

    /** The value of {@code key}, or null. */
    public String get(final String key) throws MPIException {
        return entries.get(key);
    }

    /** Removes {@code key}. */
    public void delete(final String key) throws MPIException {
        checkModifiable();
        if (entries.remove(key) == null) {
            throw new MPIException(MPI.ERR_INFO_NOKEY, "no info key " + key);
        }
    }

    /** The number of keys. */
    public int size() throws MPIException {
        return entries.size();
    }

    /** The {@code i}-th key. */
    public String getKey(final int i) throws MPIException {
        final List<String> keys = new ArrayList<>(entries.keySet());
        if (i < 0 || i >= keys.size()) {
            throw new MPIException(MPI.ERR_ARG, "info key index " + i + " out of [0, " + keys.size() + ")");
        }
        return keys.get(i);
    }

    @Override
    public Info clone() {
        try {
            return dup();
        } catch (final MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A modifiable copy. */
    public Info dup() throws MPIException {
        final Info i = new Info(false);
        i.entries.putAll(entries);
        return i;
    }

    /** Frees nothing (the garbage collector does). */
    public void free() throws MPIException {
        checkModifiable();
        entries.clear();
    }

    /** True for {@link MPI#INFO_NULL}. */
    public boolean isNull() {
        return this == MPI.INFO_NULL;
    }

    private void checkModifiable() throws MPIException {
        if (constant) {
            throw new MPIException(MPI.ERR_INFO, "a predefined info object cannot be changed");
        }
    }
}
