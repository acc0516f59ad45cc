package weft.ucs.config;

import weft.ucs.Status;
import weft.ucs.WeftException;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A view of configuration values: explicit overrides, then the system property
 * {@code weft.<name>}, then the environment variable {@code WEFT_<NAME>}, then the default.
 * Immutable; {@link #with} returns a new view. Values are parsed on each {@link #get}, so read
 * them once at setup, never on the data path.
 */
public final class Config {
    private static final Config GLOBAL = new Config(Map.of(), System::getenv, System::getProperty);

    private final Map<String, String> overrides;
    private final Function<String, String> env;
    private final Function<String, String> props;

    private Config(final Map<String, String> overrides, final Function<String, String> env,
                   final Function<String, String> props) {
        this.overrides = overrides;
        this.env = env;
        this.props = props;
    }

    /** Configuration from the process environment and system properties. */
    public static Config global() {
        return GLOBAL;
    }

    /** A view with {@code name} (e.g. {@code "SHM_FIFO_SIZE"}) set to {@code value}. */
    public Config with(final String name, final String value) {
        final Map<String, String> m = new HashMap<>(overrides);
        m.put(name, value);
        return new Config(Map.copyOf(m), env, props);
    }

    /** A view that reads the environment from {@code envMap} instead of the process (for tests). */
    public static Config fromMap(final Map<String, String> envMap) {
        return new Config(Map.of(), envMap::get, k -> null);
    }

    /** Where the value of {@code var} comes from: "override", "property", "env" or "default". */
    public String source(final ConfigVar<?> var) {
        if (overrides.containsKey(var.name())) {
            return "override";
        }
        if (props.apply(var.propertyName()) != null) {
            return "property " + var.propertyName();
        }
        if (env.apply(var.envName()) != null) {
            return "env " + var.envName();
        }
        return "default";
    }

    /** The raw text of {@code var} before parsing. */
    public String text(final ConfigVar<?> var) {
        String v = overrides.get(var.name());
        if (v == null) {
            v = props.apply(var.propertyName());
        }
        if (v == null) {
            v = env.apply(var.envName());
        }
        return v == null ? var.defaultText() : v;
    }

    /**
     * The typed value of {@code var}.
     *
     * @throws WeftException (INVALID_PARAM) naming the variable, the value and what is accepted
     */
    public <T> T get(final ConfigVar<T> var) {
        final String text = text(var);
        try {
            return var.type().parse(text);
        } catch (final RuntimeException e) {
            throw new WeftException(Status.INVALID_PARAM, "invalid value '" + text + "' for " + var.envName()
                + " (" + source(var) + "): expected " + var.type().accepted()
                + (e.getMessage() == null ? "" : " [" + e.getMessage() + "]"));
        }
    }
}
