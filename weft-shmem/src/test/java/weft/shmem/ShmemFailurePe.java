package weft.shmem;

/**
 * PE programs for {@link ShmemFailureTest}. Modes: {@code globalExit CODE} (PE 1 calls globalExit while the
 * others wait in a barrier), {@code throwInTry} (PE 1 throws inside try-with-resources while the others wait
 * for a flag it would have set: its finalize must give up after {@code WEFT_SHMEM_FINALIZE_TIMEOUT}, and its
 * exit ends the job), {@code kill} (PE 1 sends itself SIGKILL while the others wait on a flag it would have set),
 * {@code init} (init only).
 */
public final class ShmemFailurePe {
    private ShmemFailurePe() {
    }

    public static void main(final String[] args) {
        switch (args[0]) {
            case "globalExit" -> {
                final Shmem shmem = Shmem.init();
                if (shmem.myPe() == 1) {
                    shmem.globalExit(Integer.parseInt(args[1]));
                }
                shmem.barrierAll(); // never completes: PE 1 is gone
                throw new AssertionError("the barrier completed without PE 1");
            }
            case "throwInTry" -> {
                try (Shmem shmem = Shmem.init()) {
                    final java.lang.foreign.MemorySegment flag = shmem.calloc(1, 8);
                    if (shmem.myPe() == 1) {
                        throw new IllegalStateException("PE 1 fails on purpose");
                    }
                    shmem.longWaitUntil(flag, Shmem.CMP_EQ, 1); // PE 1 would have set it: waits until aborted
                }
            }
            case "kill" -> {
                final Shmem shmem = Shmem.init();
                final java.lang.foreign.MemorySegment flag = shmem.calloc(1, 8);
                if (shmem.myPe() == 1) {
                    try {
                        new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                        Thread.sleep(60_000);
                    } catch (final java.io.IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                shmem.longWaitUntil(flag, Shmem.CMP_EQ, 1); // PE 1 would have set it: waits until the job ends
                throw new AssertionError("the wait completed without PE 1");
            }
            case "init" -> {
                final Shmem shmem = Shmem.init();
                System.out.println("initialized " + shmem.myPe());
                shmem.close();
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}
