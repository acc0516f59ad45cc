package weft.ucs.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every configuration variable Weft knows, in one place (printed by {@code weft info -c}).
 * Components register their variables from a static initializer of the class that declares
 * them; {@code weft.uct.Transports} loads every transport so that the registry is complete.
 */
public final class ConfigRegistry {
    private static final Map<String, ConfigVar<?>> VARS = new LinkedHashMap<>();

    private ConfigRegistry() {
    }

    /** Registers {@code var} and returns it, so declarations read {@code static final X = register(...)}. */
    public static synchronized <T> ConfigVar<T> register(final ConfigVar<T> var) {
        final ConfigVar<?> old = VARS.putIfAbsent(var.name(), var);
        if (old != null && old != var && !old.equals(var)) {
            throw new IllegalStateException("config variable registered twice: " + var.name());
        }
        return var;
    }

    /** Shorthand for {@code register(ConfigVar.of(...))}. */
    public static <T> ConfigVar<T> register(final String name, final ConfigType<T> type, final String def,
                                            final String doc) {
        return register(ConfigVar.of(name, type, def, doc));
    }

    /** The registered names (a copy; unordered). */
    public static synchronized java.util.Set<String> names() {
        return new java.util.HashSet<>(VARS.keySet());
    }

    /** All registered variables, sorted by name. */
    public static synchronized List<ConfigVar<?>> all() {
        final List<ConfigVar<?>> list = new ArrayList<>(VARS.values());
        list.sort((a, b) -> a.name().compareTo(b.name())); // not Comparator.comparing: see LaneSelector.select
        return Collections.unmodifiableList(list);
    }
}
