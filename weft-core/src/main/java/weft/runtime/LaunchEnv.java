package weft.runtime;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.function.Function;

/**
 * The environment variables the {@code weft run} launcher sets for every PE it starts, read by
 * {@link Runtime#init()}:
 *
 * <table>
 *   <caption>launcher environment</caption>
 *   <tr><th>variable</th><th>meaning</th></tr>
 *   <tr><td>{@code WEFT_RANK}</td><td>this PE's rank, 0 .. size-1</td></tr>
 *   <tr><td>{@code WEFT_SIZE}</td><td>number of PEs in the job</td></tr>
 *   <tr><td>{@code WEFT_LOCAL_RANK}</td><td>rank among the PEs of this node</td></tr>
 *   <tr><td>{@code WEFT_LOCAL_SIZE}</td><td>number of PEs on this node</td></tr>
 *   <tr><td>{@code WEFT_NODE_ID}</td><td>index of this node in the job's host list</td></tr>
 *   <tr><td>{@code WEFT_JOB_ID}</td><td>the job's identifier (also names any per-job file)</td></tr>
 *   <tr><td>{@code WEFT_KV_ADDRESS}</td><td>{@code host:port} of the launcher's key-value service</td></tr>
 *   <tr><td>{@code WEFT_JOB_SECRET}</td><td>the per-job secret (hex); proves membership to the
 *       key-value service and to tcp peers; never sent over the network</td></tr>
 * </table>
 *
 * The secret reaches a local PE through its environment (readable only by the same user) and a
 * remote PE through the launch agent's standard input, never through a command line.
 */
public final class LaunchEnv {
    public static final String RANK = "WEFT_RANK";
    public static final String SIZE = "WEFT_SIZE";
    public static final String LOCAL_RANK = "WEFT_LOCAL_RANK";
    public static final String LOCAL_SIZE = "WEFT_LOCAL_SIZE";
    public static final String NODE_ID = "WEFT_NODE_ID";
    public static final String JOB_ID = "WEFT_JOB_ID";
    public static final String KV_ADDRESS = "WEFT_KV_ADDRESS";
    public static final String JOB_SECRET = "WEFT_JOB_SECRET";

    private LaunchEnv() {
    }

    /** True when {@code env} holds what a PE started by {@code weft run} gets. */
    static boolean present(final Function<String, String> env) {
        return env.apply(RANK) != null && env.apply(KV_ADDRESS) != null;
    }

    /** The integer variable {@code name}, in {@code [min, max]}; a clear error otherwise. */
    static int intVar(final Function<String, String> env, final String name, final int min, final int max) {
        final String text = env.apply(name);
        if (text == null) {
            throw new WeftException(Status.INVALID_PARAM, name + " is not set (the process was not started "
                + "by a complete 'weft run' launcher environment)");
        }
        try {
            final int v = Integer.parseInt(text.trim());
            if (v < min || v > max) {
                throw new NumberFormatException("out of range");
            }
            return v;
        } catch (final NumberFormatException e) {
            throw new WeftException(Status.INVALID_PARAM, "invalid " + name + "='" + text + "': expected an "
                + "integer in [" + min + ", " + max + "]");
        }
    }

    /** The text variable {@code name}; a clear error when it is missing or empty. */
    static String textVar(final Function<String, String> env, final String name) {
        final String text = env.apply(name);
        if (text == null || text.isBlank()) {
            throw new WeftException(Status.INVALID_PARAM, name + " is not set (the process was not started "
                + "by a complete 'weft run' launcher environment)");
        }
        return text.trim();
    }
}
