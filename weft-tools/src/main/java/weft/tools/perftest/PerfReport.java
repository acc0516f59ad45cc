package weft.tools.perftest;

import java.util.Locale;

/**
 * Formats what {@code weft perftest} prints, in exactly the shape ucx_perftest prints it: the
 * test box, the table header, the result lines ("[thread 0]" for intermediate ones, "Final:" for
 * the last, nothing with -f) and the CSV variant (-v). Pure functions: tests check the shape.
 */
public final class PerfReport {
    private static final int BOX_WIDTH = 106;
    private static final String BOX_RULE = "+" + "-".repeat(BOX_WIDTH) + "+";
    private static final String TABLE_RULE =
        "+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+";
    private static final String TABLE_TOP =
        "+--------------+--------------+------------------------------+---------------------+-----------------------+";
    /** Label of intermediate lines (ucx_perftest runs one thread for transport tests). */
    static final String INTERMEDIATE_LABEL = "[thread 0]";
    static final String FINAL_LABEL = "Final:";

    private PerfReport() {
    }

    /**
     * The box describing the test. With {@code joinTable} (loopback: box and table printed
     * together) the closing rule is the table's top rule, as ucx_perftest does.
     */
    public static String box(final PerfParams p, final boolean joinTable) {
        return openBox(p) + (joinTable ? TABLE_TOP : BOX_RULE) + '\n';
    }

    /** The box without its closing rule: what loopback prints before CSV output (-v). */
    public static String openBox(final PerfParams p) {
        final StringBuilder sb = new StringBuilder();
        sb.append(BOX_RULE).append('\n');
        row(sb, "API:", p.test().isUcp() ? "protocol layer" : "transport layer");
        row(sb, "Test:", p.test().description());
        row(sb, "Data layout:", p.test().isUcp() ? "(automatic)" : p.layout().label());
        row(sb, "Send memory:", "host");
        row(sb, "Recv memory:", "host");
        row(sb, "Message size:", Long.toString(p.messageSize()));
        return sb.toString();
    }

    private static void row(final StringBuilder sb, final String label, final String value) {
        final String cell = " " + pad(label, 14) + value;
        sb.append('|').append(pad(cell, BOX_WIDTH)).append("|\n");
    }

    /**
     * The table header. {@code withTopRule} false when the box already printed it (loopback);
     * {@code finalOnly} (-f) names the first column "Test" instead of "Stage".
     */
    public static String tableHeader(final PerfParams p, final boolean withTopRule, final boolean finalOnly) {
        final StringBuilder sb = new StringBuilder();
        if (withTopRule) {
            sb.append(TABLE_TOP).append('\n');
        }
        sb.append('|').append(center("", 14)).append('|').append(center("", 14)).append('|')
            .append(center(p.test().timeColumn() + " (usec)", 30)).append('|')
            .append("   bandwidth (MB/s)  ").append('|')
            .append("  message rate (msg/s) ").append("|\n");
        sb.append(TABLE_RULE).append('\n');
        sb.append('|').append(center(finalOnly ? "Test" : "Stage", 14)).append('|')
            .append(center("# iterations", 14)).append('|')
            .append(center(String.format(Locale.ROOT, "%.1f%%ile", p.percentile()), 10)).append('|')
            .append(center("average", 9)).append('|').append(center("overall", 9)).append('|')
            .append("  average ").append('|').append("  overall ").append('|')
            .append(center("average", 11)).append('|').append(center("overall", 11)).append("|\n");
        sb.append(TABLE_RULE).append('\n');
        return sb.toString();
    }

    /** A table line; {@code label} is "[thread 0]", "Final:" or "" (with -f). */
    public static String line(final String label, final PerfResult r) {
        return String.format(Locale.ROOT, "%-14s%14d %10.3f %9.3f %9.3f %11.2f %10.2f %11.0f %11.0f",
            label, r.iterations(), r.typicalUs(), r.avgUs(), r.overallUs(), r.avgMBs(), r.overallMBs(),
            r.avgRate(), r.overallRate());
    }

    /** The CSV header line (-v). */
    public static String csvHeader(final PerfParams p) {
        return String.format(Locale.ROOT,
            "iterations,%.1f_percentile_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr", p.percentile());
    }

    /** A CSV line; intermediate lines carry the "[thread 0]" prefix, as ucx_perftest's do. */
    public static String csvLine(final boolean intermediate, final PerfResult r) {
        return String.format(Locale.ROOT, "%s%d,%.3f,%.3f,%.3f,%.2f,%.2f,%.0f,%.0f",
            intermediate ? INTERMEDIATE_LABEL : "", r.iterations(), r.typicalUs(), r.avgUs(), r.overallUs(),
            r.avgMBs(), r.overallMBs(), r.avgRate(), r.overallRate());
    }

    static String pad(final String s, final int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

    static String center(final String s, final int width) {
        if (s.length() >= width) {
            return s;
        }
        final int left = (width - s.length()) / 2;
        return " ".repeat(left) + s + " ".repeat(width - s.length() - left);
    }
}
