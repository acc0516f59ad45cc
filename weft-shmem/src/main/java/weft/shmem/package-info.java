/**
 * OpenSHMEM 1.5 (and the 1.6 additions) for Java on {@code weft.ucp}: {@link weft.shmem.Shmem} (init, the
 * symmetric heap, RMA, atomics, signals, waits, collectives, teams, locks) and {@link weft.shmem.ShmemCtx}
 * (contexts); a C routine {@code shmem_long_put} is {@code shmem.longPut}.
 *
 * <pre>{@code
 * try (Shmem shmem = Shmem.init()) {
 *     MemorySegment x = shmem.calloc(1, 8);
 *     shmem.longP(x, shmem.myPe(), (shmem.myPe() + 1) % shmem.nPes());
 *     shmem.barrierAll();
 * }
 * }</pre>
 */
package weft.shmem;
