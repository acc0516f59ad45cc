package weft.tools.bench;

import weft.tools.perftest.PerfResult;

/** The figure a bench point is judged by, taken from perftest's "overall" columns. */
enum Metric {
    /** One-way latency in microseconds: lower is better. */
    LATENCY("latency", "usec", false),
    /** Bandwidth in MB/s (2^20 bytes): higher is better. */
    BANDWIDTH("bandwidth", "MB/s", true),
    /** Messages per second: higher is better. */
    RATE("message rate", "msg/s", true);

    private final String label;
    private final String unit;
    private final boolean higherIsBetter;

    Metric(final String label, final String unit, final boolean higherIsBetter) {
        this.label = label;
        this.unit = unit;
        this.higherIsBetter = higherIsBetter;
    }

    String label() {
        return label;
    }

    String unit() {
        return unit;
    }

    boolean higherIsBetter() {
        return higherIsBetter;
    }

    /** This metric's overall figure of a result. */
    double of(final PerfResult r) {
        return switch (this) {
            case LATENCY -> r.overallUs();
            case BANDWIDTH -> r.overallMBs();
            case RATE -> r.overallRate();
        };
    }
}
