package weft.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import weft.tools.bench.BenchCommand;
import weft.tools.perftest.PerftestCommand;
import weft.tools.run.RunCommand;

/** {@code weft} command line: dispatches to the subcommands. */
@Command(name = "weft", mixinStandardHelpOptions = true, version = "weft 0.1.0",
    description = "Weft: a unified communication framework for the JVM.",
    subcommands = {BenchCommand.class, InfoCommand.class, PerftestCommand.class, RunCommand.class, TrainCommand.class,
        CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }

    public static void main(final String[] args) {
        // weft run starts a job's PEs only once its own JVM is up: build the parser of that one command
        // instead of every subcommand's (picocli reflects over each of them)
        if (args.length > 0 && args[0].equals("run")) {
            final String[] runArgs = java.util.Arrays.copyOfRange(args, 1, args.length);
            final RunCommand fast = RunCommand.parseFast(runArgs);
            if (fast != null) { // the common forms, without picocli's start-up cost (see RunArgs)
                System.exit(fast.call());
            }
            final CommandLine run = new CommandLine(new RunCommand()).setStopAtPositional(true)
                .setCommandName("weft run");
            System.exit(run.execute(runArgs));
        }
        System.exit(commandLine().execute(args));
    }

    /** The command line with every subcommand; options after {@code run}'s MAIN belong to the program. */
    public static CommandLine commandLine() {
        final CommandLine cl = new CommandLine(new Main());
        cl.getSubcommands().get("run").setStopAtPositional(true);
        return cl;
    }
}
