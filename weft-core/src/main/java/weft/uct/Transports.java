package weft.uct;

import weft.ucs.config.Config;
import weft.ucs.config.ConfigRegistry;
import weft.ucs.config.ConfigType;
import weft.ucs.config.ConfigVar;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.ServiceLoader;

/** Finds transports with {@link ServiceLoader} and filters them by {@code WEFT_TLS}. */
public final class Transports {
    /** Which transports to use: a list of names, or {@code all}. {@code ^name} excludes. */
    public static final ConfigVar<List<String>> TLS = ConfigRegistry.register("TLS", ConfigType.LIST, "all",
        "Transports to use: a comma separated list of self, shm, cma, tcp, or all; ^name excludes one.");

    private static volatile List<Transport> all;

    private Transports() {
    }

    /** Every transport on the class/module path, in a fixed order (self, shm, cma, tcp, others). */
    public static List<Transport> all() {
        List<Transport> a = all;
        if (a == null) {
            synchronized (Transports.class) {
                a = all;
                if (a == null) {
                    final List<Transport> l = new ArrayList<>();
                    for (final Transport t : ServiceLoader.load(Transport.class, Transports.class.getClassLoader())) {
                        l.add(t);
                        for (final ConfigVar<?> v : t.configVars()) {
                            ConfigRegistry.register(v);
                        }
                    }
                    final List<String> order = List.of("self", "shm", "cma", "tcp");
                    l.sort((x, y) -> Integer.compare(rank(order, x.name()), rank(order, y.name())));
                    a = Collections.unmodifiableList(l);
                    all = a;
                }
            }
        }
        return a;
    }

    private static int rank(final List<String> order, final String name) {
        final int i = order.indexOf(name);
        return i < 0 ? order.size() : i;
    }

    /** The transports selected by {@code WEFT_TLS} in {@code config}. */
    public static List<Transport> selected(final Config config) {
        final List<String> sel = config.get(TLS);
        final List<Transport> out = new ArrayList<>();
        for (final Transport t : all()) {
            if (isSelected(sel, t.name())) {
                out.add(t);
            }
        }
        return out;
    }

    static boolean isSelected(final List<String> sel, final String name) {
        if (sel.contains("^" + name)) {
            return false;
        }
        if (sel.contains("all") || sel.contains(name)) {
            return true;
        }
        // a list made only of exclusions means "all but these"
        return sel.stream().allMatch(s -> s.startsWith("^"));
    }

    /** The transport named {@code name}. */
    public static Transport byName(final String name) {
        for (final Transport t : all()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new weft.ucs.WeftException(weft.ucs.Status.UNSUPPORTED, "no transport named '" + name
            + "' (have: " + all().stream().map(Transport::name).toList() + ")");
    }
}
