package weft.runtime;

import java.nio.charset.StandardCharsets;

/**
 * A PE for the runtime tests, started as a child JVM with a launcher environment (or under
 * mpirun). Modes: {@code exchange} = put/commit/fence/get with every rank, allgather, barrier,
 * then "OK"; {@code die} = joins the job, then dies without leaving it (as a crash does); {@code throw} =
 * joins the job and throws from inside {@code try (Runtime rt = ...)}: the uncaught exception must abort
 * the job although the runtime was closed on the way out.
 */
public final class RuntimeTestPe {
    private RuntimeTestPe() {
    }

    public static void main(final String[] args) {
        final String mode = args.length > 0 ? args[0] : "exchange";
        final Runtime rt = Runtime.init();
        if (mode.equals("die")) {
            System.out.println("joined as rank " + rt.rank());
            System.out.flush();
            java.lang.Runtime.getRuntime().halt(3); // no finalize: the service sees a dead PE
        }
        if (mode.equals("throw")) {
            try (rt) {
                rt.barrier();
                throw new IllegalStateException("rank " + rt.rank() + " fails on purpose");
            }
        }
        try (rt) {
            rt.put("greeting", ("hello from " + rt.rank()).getBytes(StandardCharsets.UTF_8));
            rt.commit();
            rt.fence();
            for (int r = 0; r < rt.size(); r++) {
                final String got = new String(rt.get(r, "greeting"), StandardCharsets.UTF_8);
                if (!got.equals("hello from " + r)) {
                    throw new AssertionError("rank " + rt.rank() + " read '" + got + "' from rank " + r);
                }
            }
            final byte[][] all = rt.allgather(new byte[] {(byte) rt.rank(), (byte) rt.size()});
            for (int r = 0; r < rt.size(); r++) {
                if (all[r].length != 2 || all[r][0] != r) {
                    throw new AssertionError("allgather slot " + r + " holds rank " + all[r][0]);
                }
            }
            rt.barrier();
            System.out.println("OK rank " + rt.rank() + "/" + rt.size() + " via " + rt.bootstrapName());
        }
    }
}
