package weft.ucs;

/**
 * SplitMix64's finalizer: a cheap, well-spread 64-bit hash, and the job stamps made with it (values every
 * process of a job computes alike from the job id, and different jobs almost never share).
 */
public final class SplitMix {
    private SplitMix() {
    }

    /** The finalizer of SplitMix64 over {@code v + golden gamma}. */
    public static long mix(final long v) {
        long z = v + 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** An even, non-zero stamp that is a function of {@code salt} and the job id only ({@code null}: no job). */
    public static long evenJobStamp(final long salt, final String jobId) {
        final long h = mix(salt ^ (jobId == null ? 0 : jobId.hashCode()));
        return (h & ~1L) == 0 ? 2 : h & ~1L;
    }
}
