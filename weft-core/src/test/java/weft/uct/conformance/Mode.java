package weft.uct.conformance;

/** Where the peer of a conformance case lives. */
public enum Mode {
    /** A second worker + interface of the same transport in this JVM (or the test interface itself). */
    IN_JVM,
    /** A child JVM running {@link ConformancePeer}. */
    CROSS_PROCESS
}
