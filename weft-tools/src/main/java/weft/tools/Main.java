package weft.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import weft.tools.perftest.PerftestCommand;

/** {@code weft} command line: dispatches to the subcommands. */
@Command(name = "weft", mixinStandardHelpOptions = true, version = "weft 0.1.0",
    description = "Weft: a unified communication framework for the JVM.",
    subcommands = {InfoCommand.class, PerftestCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }

    public static void main(final String[] args) {
        final int rc = new CommandLine(new Main()).execute(args);
        System.exit(rc);
    }
}
