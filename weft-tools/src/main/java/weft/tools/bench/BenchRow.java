package weft.tools.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The outcomes of one point: Weft's and UCX's repeats, and the figures the report shows. */
final class BenchRow {
    final BenchPoint point;
    final List<Outcome> weft = new ArrayList<>();
    final List<Outcome> ucx = new ArrayList<>();

    BenchRow(final BenchPoint point) {
        this.point = point;
    }

    /** Median of Weft's figures, NaN if no run succeeded. */
    double weftValue() {
        return median(weft, 1.0);
    }

    /** Median of UCX's figures times the anchor factor, NaN if none (or not run). */
    double ucxValue() {
        return median(ucx, point.ucxFactor());
    }

    /** weft / ucx of the point's metric (NaN when a side is missing). */
    double ratio() {
        final double u = ucxValue();
        return u > 0 ? weftValue() / u : Double.NaN;
    }

    /** Median typical (percentile) latency of Weft's runs, NaN if none. */
    double weftTypicalUs() {
        return medianOf(weft.stream().filter(Outcome::succeeded).mapToDouble(o -> o.result().typicalUs()).toArray());
    }

    /** Median typical latency of UCX's runs (times the factor), NaN if none. */
    double ucxTypicalUs() {
        return medianOf(ucx.stream().filter(Outcome::succeeded)
            .mapToDouble(o -> o.result().typicalUs() * point.ucxFactor()).toArray());
    }

    /** Largest per-iteration allocation Weft's client reported, NaN if unknown. */
    double weftAllocPerOp() {
        return weft.stream().filter(Outcome::succeeded).mapToDouble(Outcome::allocPerOp).filter(d -> !Double.isNaN(d))
            .max().orElse(Double.NaN);
    }

    /** Median iteration at which Weft's latency was steady (-1 when unknown). */
    long weftSteadyAt() {
        return (long) medianOrMinus(weft.stream().filter(Outcome::succeeded).mapToDouble(Outcome::steadyAt)
            .filter(d -> d >= 0).toArray());
    }

    /** Median JIT compilation time inside Weft's measured phase, ms (-1 when unknown). */
    long weftJitMs() {
        return (long) medianOrMinus(weft.stream().filter(Outcome::succeeded).mapToDouble(Outcome::jitMs)
            .filter(d -> d >= 0).toArray());
    }

    private static double medianOrMinus(final double[] v) {
        return v.length == 0 ? -1 : medianOf(v);
    }

    /** The first failure of a side, or null. */
    static String firstError(final List<Outcome> outcomes) {
        for (final Outcome o : outcomes) {
            if (!o.succeeded()) {
                return o.error();
            }
        }
        return null;
    }

    /** True when the ratio favours Weft or ties (latency: lower; bandwidth and rate: higher). */
    boolean weftAtLeastAsGood() {
        final double r = ratio();
        return !Double.isNaN(r) && (point.metric().higherIsBetter() ? r >= 1.0 : r <= 1.0);
    }

    private double median(final List<Outcome> outcomes, final double factor) {
        return medianOf(outcomes.stream().filter(Outcome::succeeded)
            .mapToDouble(o -> point.metric().of(o.result()) * factor).toArray());
    }

    static double medianOf(final double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        final double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
