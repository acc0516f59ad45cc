package weft.ucs.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Finds {@code WEFT_*} environment variables and {@code weft.*} system properties that name no
 * configuration variable, so that a typo ({@code WEFT_RNDV_THRES}) is reported instead of silently
 * changing nothing, with the nearest known names; UCX warns about unused variables the same way.
 * {@link #warnOnce} is called when a context is created, after every layer has registered its variables.
 */
public final class UnknownVariables {
    /** WEFT_* names that are not tunables: set by launchers for each PE, or read by the entry script. */
    private static final Set<String> NOT_TUNABLES = Set.of("RANK", "SIZE", "LOCAL_RANK", "LOCAL_SIZE", "NODE_ID",
        "JOB_ID", "KV_ADDRESS", "JVM_OPTS", "REV", "AOT");
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    private static final System.Logger LOG = System.getLogger("weft.ucs.config");

    private UnknownVariables() {
    }

    /**
     * The unknown names among {@code env} (WEFT_NAME) and {@code props} (weft.name), each with up to three
     * registered names it is nearest to, e.g. {@code "WEFT_RNDV_THRES (did you mean WEFT_RNDV_THRESH?)"}.
     */
    public static List<String> find(final Map<String, String> env, final Properties props) {
        // plain loops, no streams or sorts of every name: this runs as each PE opens its context, interpreted
        final Set<String> known = ConfigRegistry.names();
        final List<String> out = new ArrayList<>();
        final List<String> ours = new ArrayList<>();
        for (final String k : env.keySet()) {
            if (k.startsWith("WEFT_")) {
                ours.add(k);
            }
        }
        ours.sort(null);
        for (final String k : ours) {
            check(k.substring(5), k, "WEFT_", known, out);
        }
        ours.clear();
        for (final String k : props.stringPropertyNames()) {
            if (k.startsWith("weft.") && k.indexOf('.', 5) < 0) { // weft.test.* and other dotted names: not ours
                ours.add(k);
            }
        }
        ours.sort(null);
        for (final String k : ours) {
            check(k.substring(5).toUpperCase(Locale.ROOT), k, "weft.", known, out);
        }
        return out;
    }

    /** Logs {@link #find} of this process's environment and properties once per process, if any. */
    public static void warnOnce() {
        if (WARNED.compareAndSet(false, true)) {
            final List<String> unknown = find(System.getenv(), System.getProperties());
            if (!unknown.isEmpty()) {
                LOG.log(System.Logger.Level.WARNING, "unknown Weft configuration, ignored: " + String.join("; ",
                    unknown) + " (weft info -c lists every variable)");
            }
        }
    }

    private static void check(final String name, final String shown, final String prefix, final Set<String> known,
                              final List<String> out) {
        if (known.contains(name) || NOT_TUNABLES.contains(name)) {
            return;
        }
        final List<String> near = known.stream().filter(k -> distance(k, name) <= Math.max(2, name.length() / 4))
            .sorted(Comparator.comparingInt((String k) -> distance(k, name)).thenComparing(Comparator.naturalOrder()))
            .limit(3)
            .map(k -> prefix + (prefix.equals("weft.") ? k.toLowerCase(Locale.ROOT) : k)).toList();
        out.add(shown + (near.isEmpty() ? "" : " (did you mean " + String.join(" or ", near) + "?)"));
    }

    /** Levenshtein distance (names are short; this runs once per process). */
    static int distance(final String a, final String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                final int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            final int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
