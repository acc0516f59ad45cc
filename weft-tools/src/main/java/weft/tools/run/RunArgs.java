package weft.tools.run;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The launcher's fast reading of {@code weft run}'s command line: the common forms (each option by one of its
 * names, its value as the next word or after {@code =}, then MAIN and the program's arguments) fill a
 * {@link RunCommand} without picocli. Anything else (help, an unknown or repeated option, a value that does not
 * parse, no MAIN) returns null, and the caller parses with picocli, which owns the help and every error message.
 *
 * <p>Why: picocli's jar is Java 5 bytecode, which the JVM's AOT cache cannot hold, so building its model by
 * reflection loads, verifies and interprets a hundred classes in every launcher: about a tenth of a second of
 * {@code weft run}'s start. {@code RunArgsTest} checks that both readings agree on every option.
 */
final class RunArgs {
    /**
     * One option: whether it takes a value and how the value sets the command (false: the value does not
     * parse, so picocli must say why). Its names share one instance, so a repeat by another name is seen.
     */
    private record Opt(boolean flag, boolean repeatable, BiPredicate<RunCommand, String> set) {
        static Opt flag(final Consumer<RunCommand> set) {
            return new Opt(true, false, (c, v) -> {
                set.accept(c);
                return true;
            });
        }

        static Opt value(final BiConsumer<RunCommand, String> set) {
            return new Opt(false, false, (c, v) -> {
                set.accept(c, v);
                return true;
            });
        }

        static Opt number(final String digits, final BiConsumer<RunCommand, String> set) {
            return new Opt(false, false, (c, v) -> {
                if (!v.matches(digits)) {
                    return false;
                }
                set.accept(c, v);
                return true;
            });
        }

        static Opt list(final Function<RunCommand, List<String>> list) {
            return new Opt(false, true, (c, v) -> list.apply(c).add(v));
        }
    }

    private static final String INT = "[0-9]{1,9}";

    /** Every name of every option of {@link RunCommand}. */
    static final Map<String, Opt> OPTIONS = options();

    private static Map<String, Opt> options() {
        final Map<String, Opt> m = new HashMap<>();
        put(m, Opt.number(INT, (c, v) -> c.n = Integer.parseInt(v)), "-n", "-np", "--np");
        put(m, Opt.value((c, v) -> c.hosts = v), "-H", "--hosts", "--host");
        put(m, Opt.value((c, v) -> c.hostfile = Path.of(v)), "--hostfile");
        put(m, Opt.flag(c -> c.oversubscribe = true), "--oversubscribe");
        put(m, Opt.value((c, v) -> c.bindTo = v), "--bind-to");
        put(m, Opt.value((c, v) -> c.mapBy = v), "--map-by");
        put(m, Opt.flag(c -> c.reportBindings = true), "--report-bindings");
        put(m, Opt.value((c, v) -> c.agent = v), "--agent");
        put(m, Opt.list(c -> c.exports), "-x");
        put(m, Opt.number(INT + "(\\.[0-9]{1,9})?", (c, v) -> c.timeoutSeconds = Double.parseDouble(v)),
            "--timeout");
        put(m, Opt.flag(c -> c.tagOutput = true), "--tag-output");
        put(m, Opt.value((c, v) -> c.classpath = v), "-cp", "--cp", "--classpath");
        put(m, Opt.list(c -> c.jvmOptions), "-J", "--jvm-option");
        put(m, Opt.flag(c -> c.noAotCache = true), "--no-aot-cache");
        put(m, Opt.number(INT, (c, v) -> c.port = Integer.parseInt(v)), "--port");
        put(m, Opt.value((c, v) -> c.bootstrapAddress = v), "--bootstrap-address");
        return Map.copyOf(m);
    }

    private static void put(final Map<String, Opt> m, final Opt o, final String... names) {
        for (final String name : names) {
            m.put(name, o);
        }
    }

    private RunArgs() {
    }

    /**
     * {@code weft run}'s arguments (after "run") read into a new command, or null when they need picocli.
     * Example: {@code parse("-n", "2", "-x", "A=1", "my.Main", "x")} sets n, exports, main and args.
     */
    static RunCommand parse(final String... a) {
        final RunCommand c = new RunCommand();
        // by identity (the names of one option share one instance): a record's generated hashCode is linked
        // at its first call, 16 ms of the launcher's start-up
        final Set<Opt> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        int i = 0;
        for (; i < a.length && a[i].startsWith("-"); i++) {
            final int eq = a[i].indexOf('=');
            final Opt o = OPTIONS.get(eq < 0 ? a[i] : a[i].substring(0, eq));
            if (o == null) {
                return null; // --help, --, an unknown option, a clustered short option ...
            }
            if (!o.repeatable() && !seen.add(o)) {
                return null; // picocli refuses a single-valued option given twice: let it say so
            }
            final String value;
            if (o.flag()) {
                if (eq >= 0) {
                    return null;
                }
                value = null;
            } else if (eq >= 0) {
                value = a[i].substring(eq + 1);
            } else if (i + 1 < a.length && !OPTIONS.containsKey(a[i + 1])) {
                value = a[++i];
            } else {
                return null;
            }
            if (!o.set().test(c, value)) {
                return null;
            }
        }
        if (i >= a.length || !seen.contains(OPTIONS.get("-n"))) {
            return null;
        }
        c.main = a[i];
        c.args.addAll(Arrays.asList(a).subList(i + 1, a.length));
        return c;
    }
}
