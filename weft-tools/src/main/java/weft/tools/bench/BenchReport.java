package weft.tools.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The table printed at the end of a bench run, the progress lines, and the CSV file. */
final class BenchReport {
    private BenchReport() {
    }

    /** One line per finished point, as the run goes. */
    static String progressLine(final int index, final int total, final BenchRow row, final boolean withUcx) {
        final BenchPoint p = row.point;
        final StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "[%2d/%d] %-4s %-12s %8s  weft %s",
            index, total, p.transport(), p.test(), BenchPoint.sizeLabel(p.size()), figure(row.weftValue(), p.metric())));
        if (withUcx) {
            sb.append("  ucx ").append(figure(row.ucxValue(), p.metric()));
            if (!Double.isNaN(row.ratio())) {
                sb.append(String.format(Locale.ROOT, "  weft/ucx %.2f", row.ratio()));
            }
            if (p.proxyAnchor()) {
                sb.append(" (ucx: ").append(p.anchorNote()).append(')');
            }
        }
        final String we = BenchRow.firstError(row.weft);
        if (we != null) {
            sb.append("  weft failed: ").append(we);
        }
        final String ue = withUcx ? BenchRow.firstError(row.ucx) : null;
        if (ue != null) {
            sb.append("  ucx failed: ").append(ue);
        }
        return sb.toString();
    }

    /** The summary table, grouped by transport. */
    static void table(final PrintStream out, final List<BenchRow> rows, final boolean withUcx) {
        String transport = null;
        for (final BenchRow row : rows) {
            final BenchPoint p = row.point;
            if (!p.transport().equals(transport)) {
                transport = p.transport();
                out.println();
                out.println(transport.equals("shm")
                    ? "shm  (Weft: shared memory + cma + self; UCX: UCX_TLS=sm)"
                    : transport + "  (Weft: WEFT_TLS=" + transport + "; UCX: UCX_TLS=" + UcxSide.ucxTls(transport) + ")");
                out.printf(Locale.ROOT, "  %-12s %8s  %-12s %12s %12s %9s %9s%s%n", "test", "size", "metric", "weft",
                    withUcx ? "ucx" : "", withUcx ? "weft/ucx" : "", "alloc B/op",
                    p.cold() ? String.format(Locale.ROOT, " %12s %8s %10s", "warm-up+iters", "steady@", "jit ms") : "");
            }
            out.printf(Locale.ROOT, "  %-12s %8s  %-12s %12s %12s %9s %9s%s%s%n", p.test(), BenchPoint.sizeLabel(p.size()),
                p.metric().unit() + (p.metric() == Metric.LATENCY ? " 1-way" : ""),
                number(row.weftValue()), withUcx ? number(row.ucxValue()) : "",
                withUcx && !Double.isNaN(row.ratio()) ? String.format(Locale.ROOT, "%.2f%s", row.ratio(),
                    row.weftAtLeastAsGood() ? " +" : "  ") : "",
                Double.isNaN(row.weftAllocPerOp()) ? "-" : String.format(Locale.ROOT, "%.1f", row.weftAllocPerOp()),
                p.cold() ? coldColumns(row) : "",
                withUcx && p.proxyAnchor() ? "   ucx = " + p.anchorNote() : "");
        }
        out.println();
        if (withUcx) {
            out.println("weft/ucx: the ratio of the two figures; for latency lower is better, for bandwidth and "
                + "message rate higher; '+' marks Weft at least as good as UCX.");
        }
        if (rows.stream().anyMatch(r -> r.point.cold())) {
            out.println("cold: each run in new JVMs (UCX: new processes) at OSU's counts; steady@: the measured "
                + "iteration from which Weft's per-iteration time stayed within 10% of its last half's median "
                + "('never': not within the run); jit ms: Weft's client JIT compilation inside the measured phase.");
        }
    }

    /** The --cold columns: counts, Weft's steady-state iteration and JIT time inside the measured phase. */
    static String coldColumns(final BenchRow row) {
        final BenchPoint p = row.point;
        final long at = row.weftSteadyAt();
        final long jit = row.weftJitMs();
        return String.format(Locale.ROOT, " %12s %8s %10s", p.warmup() + "+" + p.iterations(),
            at < 0 ? "-" : at >= p.iterations() ? "never" : Long.toString(at), jit < 0 ? "-" : Long.toString(jit));
    }

    /** Writes every point with both sides' figures (medians over the repeats). */
    static void csv(final Path file, final List<BenchRow> rows) throws IOException {
        final StringBuilder sb = new StringBuilder("transport,test,size,metric,unit,weft,ucx,weft_over_ucx,"
            + "weft_typical_us,ucx_typical_us,weft_alloc_bytes_per_op,iterations,warmup,repeats,ucx_anchor,"
            + "weft_error,ucx_error,cold,weft_steady_iteration,weft_jit_ms_measured\n");
        for (final BenchRow row : rows) {
            final BenchPoint p = row.point;
            sb.append(String.join(",", p.transport(), p.test(), Long.toString(p.size()),
                p.metric().name().toLowerCase(Locale.ROOT), p.metric().unit(), csvNumber(row.weftValue()),
                csvNumber(row.ucxValue()), csvNumber(row.ratio()), csvNumber(row.weftTypicalUs()),
                csvNumber(row.ucxTypicalUs()), csvNumber(row.weftAllocPerOp()), Long.toString(p.iterations()),
                Long.toString(p.warmup()), Integer.toString(row.weft.size()), csvText(p.anchorNote()),
                csvText(BenchRow.firstError(row.weft)), csvText(BenchRow.firstError(row.ucx)), Boolean.toString(p.cold()),
                Long.toString(row.weftSteadyAt()), Long.toString(row.weftJitMs()))).append('\n');
        }
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    static String figure(final double v, final Metric m) {
        return Double.isNaN(v) ? "-" : number(v) + " " + m.unit();
    }

    /** Four significant digits, thousands grouped for large numbers. */
    static String number(final double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        if (Math.abs(v) >= 10_000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static String csvNumber(final double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6g", v);
    }

    private static String csvText(final String s) {
        if (s == null || s.isEmpty()) {
            return "";
        }
        return '"' + s.replace("\"", "\"\"").replace('\n', ' ') + '"';
    }
}
