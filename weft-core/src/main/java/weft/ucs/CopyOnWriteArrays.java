package weft.ucs;

import java.util.Arrays;

/**
 * Arrays replaced whole on every change, so that a reader takes a snapshot with one field read and walks it
 * without a lock or an iterator (interfaces' endpoint lists, blocked-progress sources, live memory maps).
 */
public final class CopyOnWriteArrays {
    private CopyOnWriteArrays() {
    }

    /** A copy of {@code a} with {@code x} appended. */
    public static <T> T[] with(final T[] a, final T x) {
        final T[] n = Arrays.copyOf(a, a.length + 1);
        n[a.length] = x;
        return n;
    }

    /** A copy of {@code a} without its first element identical to {@code x}, or {@code a} itself if none is. */
    public static <T> T[] without(final T[] a, final T x) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == x) {
                final T[] n = Arrays.copyOf(a, a.length - 1);
                System.arraycopy(a, i + 1, n, i, a.length - 1 - i);
                return n;
            }
        }
        return a;
    }
}
