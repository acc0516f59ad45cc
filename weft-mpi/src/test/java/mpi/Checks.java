package mpi;

/** Assertions for rank programs: a failed check throws (the job then aborts) naming the rank and the check. */
final class Checks {
    private final String program;
    private final int rank;
    private int passed;

    Checks(final String program, final int rank) {
        this.program = program;
        this.rank = rank;
    }

    void that(final boolean ok, final String what) {
        if (!ok) {
            throw new AssertionError(program + " rank " + rank + ": " + what);
        }
        passed++;
    }

    void equal(final long want, final long got, final String what) {
        that(want == got, what + ": expected " + want + ", got " + got);
    }

    void equal(final double want, final double got, final String what) {
        that(Double.compare(want, got) == 0 || Math.abs(want - got) <= 1e-9 * Math.max(1, Math.abs(want)),
            what + ": expected " + want + ", got " + got);
    }

    /** Runs {@code body}, which must throw an MPIException of {@code errorClass}. */
    void fails(final int errorClass, final String what, final Body body) {
        try {
            body.run();
        } catch (final MPIException e) {
            that(e.getErrorClass() == errorClass, what + ": error class " + e.getErrorClass() + " instead of "
                + errorClass + " (" + e.getMessage() + ")");
            return;
        }
        that(false, what + ": no MPIException");
    }

    @FunctionalInterface
    interface Body {
        void run() throws MPIException;
    }

    /** Checks that messages go the path {@code WEFT_MPI_TRANSPORT} names (tag matching unless "am"). */
    void configuredPath() throws MPIException {
        final boolean am = "am".equalsIgnoreCase(System.getenv("WEFT_MPI_TRANSPORT"));
        that((MPI.session().am != null) == am, "messages go the " + (am ? "active-message" : "tag-matching")
            + " path WEFT_MPI_TRANSPORT names");
    }

    /** The line the test looks for: every check of the program passed. */
    void done() {
        System.out.println("OK " + program + " rank " + rank + " " + passed + " checks");
    }
}
