/*
 * The OpenSHMEM side of bench/shmem/compare.sh: the same measurements as ShmemBench.java, in C, for Open MPI's
 * OSHMEM (compiled with oshcc at bench time). 2 PEs: PE 0 issues, PE 1 waits in a barrier (progressing).
 * Open MPI 4.1's OSHMEM implements OpenSHMEM 1.4 (no teams): the collectives are the active-set forms over
 * all PEs, with two pSync arrays used in turn so that back-to-back calls need no barrier between them.
 * Output (PE 0): one line per measurement, "test bytes value unit". SHMEM_BENCH_ROWS=coll: the collectives alone;
 * SHMEM_BENCH_ROWS=sig: put+quiet and the put-with-signal ping-pong alone (OpenSHMEM 1.4 has no put_signal: the
 * put, a fence and an atomic set, as a 1.4 program signals).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX (1 << 20)
#define WINDOW 64
#define COLL_SKIP 1000 /* warm-up calls before each timed collective loop (OSU skips 200-1000) */

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int iters(size_t bytes) {
    return bytes <= 4096 ? 10000 : bytes <= 262144 ? 1000 : 200;
}

static const size_t SIZES[] = {8, 64, 512, 4096, 32768, 262144, 1048576};

static long bsync[2][SHMEM_BCAST_SYNC_SIZE];
static long rsync[2][SHMEM_REDUCE_SYNC_SIZE];
static long csync[2][SHMEM_COLLECT_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    char *sym = shmem_malloc(MAX);
    char *local = malloc(MAX);
    long *word = shmem_calloc(8, sizeof(long));
    long *red_src = shmem_calloc(1, sizeof(long));
    long *red_dst = shmem_calloc(1, sizeof(long));
    long *coll_dst = shmem_calloc(16, sizeof(long));
    memset(local, 1, MAX);
    int npes = shmem_n_pes();
    const char *rows = getenv("SHMEM_BENCH_ROWS"); /* "coll": the collective rows alone */
    int sig = rows && strcmp(rows, "sig") == 0;
    int p2p = !(rows && strcmp(rows, "coll") == 0) && !sig;
    long *ping_sig = shmem_calloc(1, sizeof(long));
    long ping_seq = 0;
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) bsync[k][i] = SHMEM_SYNC_VALUE;
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) rsync[k][i] = SHMEM_SYNC_VALUE;
        for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++) csync[k][i] = SHMEM_SYNC_VALUE;
    }
    shmem_barrier_all();
    for (int pass = 0; pass < 2; pass++) {
        int report = pass == 1 && me == 0;
        if (sig) {
            int n = 10000;
            if (me == 0) {
                double t0 = now_us();
                for (int i = 0; i < n; i++) { shmem_putmem(sym, local, 8, 1); shmem_quiet(); }
                if (report) printf("put+quiet 8 %.3f us\n", (now_us() - t0) / n);
            }
            shmem_barrier_all();
            static const size_t PS[] = {8, 4096};
            for (int s = 0; s < 2; s++) {
                size_t b = PS[s];
                double t0 = now_us();
                for (int i = 0; i < n; i++) {
                    long seq = ++ping_seq;
                    if (me == 0) {
                        shmem_putmem(sym, local, b, 1); shmem_fence(); shmem_long_atomic_set(ping_sig, seq, 1);
                        shmem_long_wait_until(ping_sig, SHMEM_CMP_GE, seq);
                    } else {
                        shmem_long_wait_until(ping_sig, SHMEM_CMP_GE, seq);
                        shmem_putmem(sym, local, b, 0); shmem_fence(); shmem_long_atomic_set(ping_sig, seq, 0);
                    }
                }
                if (report) printf("putsig %zu %.3f us\n", b, (now_us() - t0) / n / 2);
            }
            shmem_barrier_all();
            continue;
        }
        for (unsigned s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
            size_t b = SIZES[s];
            int n = iters(b);
            if (me == 0 && p2p) {
                double t0 = now_us();
                for (int i = 0; i < n; i++) shmem_putmem(sym, local, b, 1);
                shmem_quiet();
                if (report) printf("put %zu %.3f us\n", b, (now_us() - t0) / n);
                t0 = now_us();
                for (int i = 0; i < n; i++) shmem_getmem(local, sym, b, 1);
                if (report) printf("get %zu %.3f us\n", b, (now_us() - t0) / n);
            }
            shmem_barrier_all();
        }
        if (me == 0 && p2p) {
            int n = 10000;
            double t0 = now_us();
            for (int i = 0; i < n; i++) { shmem_putmem(sym, local, 8, 1); shmem_quiet(); }
            if (report) printf("put+quiet 8 %.3f us\n", (now_us() - t0) / n);
            t0 = now_us();
            for (int i = 0; i < n; i += WINDOW) {
                for (int j = 0; j < WINDOW; j++) shmem_putmem_nbi(sym + 8 * j, local, 8, 1);
                shmem_quiet();
            }
            if (report) printf("put_rate 8 %.3f Mops\n", n / (now_us() - t0));
            t0 = now_us();
            for (int i = 0; i < n; i += WINDOW) {
                for (int j = 0; j < WINDOW; j++) shmem_getmem_nbi(local + 8 * j, sym, 8, 1);
                shmem_quiet();
            }
            if (report) printf("get_rate 8 %.3f Mops\n", n / (now_us() - t0));
            t0 = now_us();
            for (int i = 0; i < n; i++) shmem_long_atomic_fetch_add(word, 1, 1);
            if (report) printf("fetch_add 8 %.3f us\n", (now_us() - t0) / n);
            t0 = now_us();
            for (int i = 0; i < n; i++) shmem_long_atomic_add(word, 1, 1);
            shmem_quiet();
            if (report) printf("add 8 %.3f us\n", (now_us() - t0) / n);
            t0 = now_us();
            for (int i = 0; i < n; i++) shmem_long_atomic_swap(word, i, 1);
            if (report) printf("swap 8 %.3f us\n", (now_us() - t0) / n);
            t0 = now_us();
            for (int i = 0; i < n; i++) shmem_long_atomic_compare_swap(word, i, i + 1, 1);
            if (report) printf("cswap 8 %.3f us\n", (now_us() - t0) / n);
        }
        shmem_barrier_all();
        int n = 10000, skip = COLL_SKIP; /* OSU's warm-up iterations, the same on both sides */
        for (int i = 0; i < skip; i++) shmem_barrier_all();
        double t0 = now_us();
        for (int i = 0; i < n; i++) shmem_barrier_all();
        if (report) printf("barrier 0 %.3f us\n", (now_us() - t0) / n);
        for (int i = 0; i < skip; i++) shmem_broadcast64(coll_dst, red_src, 1, 0, 0, 0, npes, bsync[i & 1]);
        t0 = now_us();
        for (int i = 0; i < n; i++) shmem_broadcast64(coll_dst, red_src, 1, 0, 0, 0, npes, bsync[i & 1]);
        if (report) printf("broadcast 8 %.3f us\n", (now_us() - t0) / n);
        for (int i = 0; i < skip; i++) shmem_long_sum_to_all(red_dst, red_src, 1, 0, 0, npes, pwrk, rsync[i & 1]);
        t0 = now_us();
        for (int i = 0; i < n; i++) shmem_long_sum_to_all(red_dst, red_src, 1, 0, 0, npes, pwrk, rsync[i & 1]);
        if (report) printf("reduce 8 %.3f us\n", (now_us() - t0) / n);
        for (int i = 0; i < skip; i++) shmem_fcollect64(coll_dst, red_src, 1, 0, 0, npes, csync[i & 1]);
        t0 = now_us();
        for (int i = 0; i < n; i++) shmem_fcollect64(coll_dst, red_src, 1, 0, 0, npes, csync[i & 1]);
        if (report) printf("fcollect 8 %.3f us\n", (now_us() - t0) / n);
        shmem_barrier_all();
    }
    fflush(stdout);
    shmem_barrier_all();
    shmem_finalize();
    free(local);
    return 0;
}
