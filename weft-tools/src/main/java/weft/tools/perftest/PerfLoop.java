package weft.tools.perftest;

/** The timed part of a test, at either layer: what {@code PerfRun} measures and reports. */
interface PerfLoop {
    /**
     * Runs {@code n} iterations; with a meter, times each. With {@code drain} (the measured phase)
     * it ends with the drain of everything outstanding, timed too. Returns the meter's final
     * figures (null without meter).
     */
    PerfResult run(long n, PerfMeter meter, boolean drain);

    /** What the run used and counted, one line per entry (printed as comments after the result). */
    String describe();

    /** Releases what a failed run left outstanding (nothing by default). */
    default void abandon() {
    }
}
