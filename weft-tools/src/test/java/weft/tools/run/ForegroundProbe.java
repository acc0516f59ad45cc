package weft.tools.run;

/**
 * A program for {@link CrowdedNodeTest}: a method of a {@code weft.*} class and two of the JDK's, each called
 * often enough to be compiled. Prints {@code done}.
 */
public final class ForegroundProbe {
    private ForegroundProbe() {
    }

    static long work(final long x) {
        return x * 31 + (x >>> 7);
    }

    public static void main(final String[] args) {
        long s = 0;
        for (int i = 0; i < 200_000; i++) {
            s += work(i) + Long.toString(i).hashCode();
        }
        System.out.println(s == 42 ? "?" : "done");
    }
}
