package weft.ucp.conformance;

/**
 * A two-PE protocol test: the same code runs in both PEs, each with its own worker and an endpoint
 * to the other, told apart by {@link Pe#rank()}. {@link ScenarioRunner} runs it with both PEs in one
 * JVM (two threads) or in two JVM processes, over a given transport set.
 *
 * <p>Scenarios must be public classes with a public no-argument constructor (the child JVM creates
 * them by name) and must not rely on state outside {@link Pe}.
 */
@FunctionalInterface
public interface Scenario {
    /** Runs this PE's side. Throw (e.g. an AssertionError) to fail the test. */
    void run(Pe pe) throws Exception;
}
