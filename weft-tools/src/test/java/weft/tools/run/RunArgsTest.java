package weft.tools.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The launcher's fast reading of {@code weft run}'s arguments agrees with picocli's, or defers to it. */
class RunArgsTest {
    private static RunCommand picocli(final String... a) {
        final RunCommand c = new RunCommand();
        new CommandLine(c).setStopAtPositional(true).parseArgs(a);
        return c;
    }

    /** Every field picocli sets, by name, as text. */
    private static List<String> fields(final RunCommand c) throws IllegalAccessException {
        final List<String> out = new ArrayList<>();
        for (final Field f : RunCommand.class.getDeclaredFields()) {
            if (f.isAnnotationPresent(CommandLine.Option.class) || f.isAnnotationPresent(CommandLine.Parameters.class)) {
                out.add(f.getName() + "=" + Objects.toString(f.get(c)));
            }
        }
        return out;
    }

    private static void same(final String... a) throws IllegalAccessException {
        final RunCommand fast = RunArgs.parse(a);
        assertNotNull(fast, "the fast reading deferred on " + List.of(a));
        assertEquals(fields(picocli(a)), fields(fast), "for " + List.of(a));
    }

    private static String[] with(final List<String> first, final String... rest) {
        final List<String> all = new ArrayList<>(first);
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    @Test
    void agreesOnEveryOptionByEveryName() throws IllegalAccessException {
        final CommandLine.Model.CommandSpec spec = new CommandLine(new RunCommand()).getCommandSpec();
        int names = 0;
        for (final CommandLine.Model.OptionSpec o : spec.options()) {
            for (final String name : o.names()) {
                if (name.equals("-h") || name.equals("--help") || name.equals("-V") || name.equals("--version")) {
                    continue;
                }
                assertTrue(RunArgs.OPTIONS.containsKey(name), "RunArgs does not know " + name);
                names++;
                // -n is required: the other options are given beside it
                final List<String> n = o.names()[0].equals("-n") ? List.of() : List.of("-n", "3");
                if (o.arity().max() == 0) {
                    same(with(n, name, "my.Main"));
                } else {
                    final String v = o.type() == int.class ? "7" : o.type() == double.class ? "2.5" : "v=1:x";
                    same(with(n, name, v, "my.Main", "a"));
                    same(with(n, name + "=" + v, "my.Main"));
                }
            }
        }
        assertEquals(RunArgs.OPTIONS.size(), names, "RunArgs knows an option weft run does not have");
    }

    @Test
    void agreesOnTypicalCommandLines() throws IllegalAccessException {
        same("-n", "2", "-cp", "/tmp/x", "HelloWeft");
        same("-np", "4", "-x", "WEFT_TLS=tcp", "-x", "A", "-J", "-Xmx1g", "-J=-Xlog:gc", "--timeout", "60",
            "--bind-to", "none", "app.jar", "--flag-of-the-program", "-n", "9");
        same("-n", "64", "--timeout=900", "-x", "WEFT_BOOTSTRAP_TIMEOUT=300s", "examples/AllPairs.java");
        same("--np", "2", "--tag-output", "--report-bindings", "--map-by", "node:PE=1", "--oversubscribe",
            "--no-aot-cache", "--port", "0", "--agent", "ip netns exec", "-H", "a:1,b:1", "M", "x", "", "y");
        same("-n", "1", "--hostfile", "hosts.txt", "--bootstrap-address", "10.0.0.1", "M");
    }

    @Test
    void defersToPicocliForEverythingElse() {
        assertNull(RunArgs.parse("--help"));
        assertNull(RunArgs.parse("-n", "2", "-h"));
        assertNull(RunArgs.parse("-n", "2"), "no MAIN");
        assertNull(RunArgs.parse("HelloWeft"), "no -n");
        assertNull(RunArgs.parse("-n", "two", "M"), "not a number");
        assertNull(RunArgs.parse("-n", "-1", "M"));
        assertNull(RunArgs.parse("-n", "2", "-n", "3", "M"), "a single-valued option twice");
        assertNull(RunArgs.parse("-n", "2", "--np", "3", "M"), "a single-valued option twice, by two of its names");
        assertNull(RunArgs.parse("-n", "2", "--tag-output", "--tag-output", "M"));
        assertNull(RunArgs.parse("-n2", "M"), "a clustered short option");
        assertNull(RunArgs.parse("-n", "2", "--bogus", "M"));
        assertNull(RunArgs.parse("-n", "2", "--", "M"));
        assertNull(RunArgs.parse("-n", "2", "-J", "-x", "M"), "a value that is an option name");
        assertNull(RunArgs.parse("-n", "2", "--timeout", "1e3", "M"));
        assertNull(RunArgs.parse("-n", "2", "--tag-output=true", "M"));
        assertNull(RunArgs.parse("-n", "2", "-cp"), "a missing value");
    }
}
