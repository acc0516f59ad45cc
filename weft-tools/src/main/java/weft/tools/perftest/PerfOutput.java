package weft.tools.perftest;

import java.io.PrintStream;

/**
 * Where the client's results go, in the form chosen on the command line: the table (default),
 * final line only (-f), CSV (-v) or both (-f -v).
 */
final class PerfOutput {
    private final PrintStream out;
    private final PerfParams params;
    private final boolean finalOnly;
    private final boolean csv;

    PerfOutput(final PrintStream out, final PerfParams params, final boolean finalOnly, final boolean csv) {
        this.out = out;
        this.params = params;
        this.finalOnly = finalOnly;
        this.csv = csv;
    }

    /** The table or CSV header; {@code afterBox} when the test box was just printed (loopback). */
    void header(final boolean afterBox) {
        if (csv) {
            out.println(PerfReport.csvHeader(params));
        } else {
            out.print(PerfReport.tableHeader(params, !afterBox, finalOnly));
        }
        out.flush();
    }

    /** True if intermediate lines are wanted (not -f). */
    boolean wantsIntermediate() {
        return !finalOnly;
    }

    void intermediate(final PerfResult r) {
        out.println(csv ? PerfReport.csvLine(true, r) : PerfReport.line(PerfReport.INTERMEDIATE_LABEL, r));
        out.flush();
    }

    void finalResult(final PerfResult r) {
        out.println(csv ? PerfReport.csvLine(false, r)
            : PerfReport.line(finalOnly ? "" : PerfReport.FINAL_LABEL, r));
        out.flush();
    }
}
