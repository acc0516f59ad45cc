package weft.ucp.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Rank 1 of a cross-process {@link Scenario}: prints {@code ADDR <hex>}, reads the parent's
 * {@code ADDR <hex>} from stdin, runs the scenario, prints {@code RESULT OK} or
 * {@code RESULT FAIL <trace>}. Exits when stdin closes (the parent died) so no child outlives a test.
 */
public final class ScenarioPeerMain {
    private ScenarioPeerMain() {
    }

    public static void main(final String[] args) throws Exception {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        @SuppressWarnings("unchecked")
        final Class<? extends Scenario> sc = (Class<? extends Scenario>) Class.forName(args[0]);
        int exit = 0;
        try {
            ScenarioRunner.runPe(sc, args[1], 1, true,
                a -> out.println("ADDR " + HexFormat.of().formatHex(a)),
                () -> {
                    final String line = in.readLine();
                    if (line == null || !line.startsWith("ADDR ")) {
                        throw new IllegalStateException("parent sent no address: " + line);
                    }
                    weft.testkit.StdinWatch.haltWhenClosed(in); // parent gone (stdin EOF) -> exit
                    return HexFormat.of().parseHex(line.substring(5).trim());
                });
            out.println("RESULT OK");
        } catch (final Throwable t) {
            final StringWriter sw = new StringWriter();
            t.printStackTrace(new PrintWriter(sw));
            out.println("RESULT FAIL " + sw.toString().replace('\n', '|'));
            exit = 1;
        }
        out.flush();
        System.exit(exit);
    }
}
