package weft.tools.run;

import java.nio.file.Path;
import java.util.Map;

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
    private enum Kind { VALUE, LIST, FLAG }

    private record Opt(String field, Kind kind) {
    }

    /** Every name of every option of {@link RunCommand}, with the field it sets. */
    static final Map<String, Opt> OPTIONS = Map.ofEntries(
        Map.entry("-n", new Opt("n", Kind.VALUE)), Map.entry("-np", new Opt("n", Kind.VALUE)),
        Map.entry("--np", new Opt("n", Kind.VALUE)),
        Map.entry("-H", new Opt("hosts", Kind.VALUE)), Map.entry("--hosts", new Opt("hosts", Kind.VALUE)),
        Map.entry("--host", new Opt("hosts", Kind.VALUE)),
        Map.entry("--hostfile", new Opt("hostfile", Kind.VALUE)),
        Map.entry("--oversubscribe", new Opt("oversubscribe", Kind.FLAG)),
        Map.entry("--bind-to", new Opt("bindTo", Kind.VALUE)),
        Map.entry("--map-by", new Opt("mapBy", Kind.VALUE)),
        Map.entry("--report-bindings", new Opt("reportBindings", Kind.FLAG)),
        Map.entry("--agent", new Opt("agent", Kind.VALUE)),
        Map.entry("-x", new Opt("exports", Kind.LIST)),
        Map.entry("--timeout", new Opt("timeoutSeconds", Kind.VALUE)),
        Map.entry("--tag-output", new Opt("tagOutput", Kind.FLAG)),
        Map.entry("-cp", new Opt("classpath", Kind.VALUE)), Map.entry("--cp", new Opt("classpath", Kind.VALUE)),
        Map.entry("--classpath", new Opt("classpath", Kind.VALUE)),
        Map.entry("-J", new Opt("jvmOptions", Kind.LIST)), Map.entry("--jvm-option", new Opt("jvmOptions", Kind.LIST)),
        Map.entry("--no-aot-cache", new Opt("noAotCache", Kind.FLAG)),
        Map.entry("--port", new Opt("port", Kind.VALUE)),
        Map.entry("--bootstrap-address", new Opt("bootstrapAddress", Kind.VALUE)));

    private RunArgs() {
    }

    /**
     * {@code weft run}'s arguments (after "run") read into a new command, or null when they need picocli.
     * Example: {@code parse("-n", "2", "-x", "A=1", "my.Main", "x")} sets n, exports, main and args.
     */
    static RunCommand parse(final String... a) {
        final RunCommand c = new RunCommand();
        final java.util.Set<String> seen = new java.util.HashSet<>();
        int i = 0;
        for (; i < a.length && a[i].startsWith("-"); i++) {
            final int eq = a[i].indexOf('=');
            final String name = eq < 0 ? a[i] : a[i].substring(0, eq);
            final Opt o = OPTIONS.get(name);
            if (o == null) {
                return null; // --help, --, an unknown option, a clustered short option ...
            }
            if (o.kind() == Kind.FLAG) {
                if (eq >= 0 || !seen.add(o.field())) {
                    return null;
                }
                setFlag(c, o.field());
                continue;
            }
            final String value;
            if (eq >= 0) {
                value = a[i].substring(eq + 1);
            } else if (i + 1 < a.length && !OPTIONS.containsKey(a[i + 1])) {
                value = a[++i];
            } else {
                return null;
            }
            if (o.kind() != Kind.LIST && !seen.add(o.field())) {
                return null; // picocli refuses a single-valued option given twice: let it say so
            }
            if (!set(c, o, value)) {
                return null;
            }
        }
        if (i >= a.length || !seen.contains("n")) {
            return null;
        }
        c.main = a[i];
        c.args.addAll(java.util.Arrays.asList(a).subList(i + 1, a.length));
        return c;
    }

    private static void setFlag(final RunCommand c, final String field) {
        switch (field) {
            case "oversubscribe" -> c.oversubscribe = true;
            case "reportBindings" -> c.reportBindings = true;
            case "tagOutput" -> c.tagOutput = true;
            case "noAotCache" -> c.noAotCache = true;
            default -> throw new IllegalStateException("no flag " + field);
        }
    }

    private static boolean set(final RunCommand c, final Opt o, final String v) {
        switch (o.field()) {
            case "n", "port" -> {
                if (!v.matches("[0-9]{1,9}")) {
                    return false;
                }
                if (o.field().equals("n")) {
                    c.n = Integer.parseInt(v);
                } else {
                    c.port = Integer.parseInt(v);
                }
            }
            case "timeoutSeconds" -> {
                if (!v.matches("[0-9]{1,9}(\\.[0-9]{1,9})?")) {
                    return false;
                }
                c.timeoutSeconds = Double.parseDouble(v);
            }
            case "hostfile" -> c.hostfile = Path.of(v);
            case "hosts" -> c.hosts = v;
            case "bindTo" -> c.bindTo = v;
            case "mapBy" -> c.mapBy = v;
            case "agent" -> c.agent = v;
            case "classpath" -> c.classpath = v;
            case "bootstrapAddress" -> c.bootstrapAddress = v;
            case "exports" -> c.exports.add(v);
            case "jvmOptions" -> c.jvmOptions.add(v);
            default -> throw new IllegalStateException("no option field " + o.field());
        }
        return true;
    }
}
