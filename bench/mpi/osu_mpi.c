/*
 * OSU-style measurements on a native MPI, the C side of `./weft bench mpi` (written for this repository;
 * OsuMpi.java is the Java side and takes the same arguments, iteration counts and output format).
 *
 *   mpicc -O2 -o osu_mpi osu_mpi.c
 *   mpirun -np 2 --bind-to core ./osu_mpi [latency|bw|bibw|mbw_mr|barrier|bcast|reduce|allreduce|allgather|alltoall|all] [MAX_BYTES]
 *
 * Method (OSU's): warm-up iterations (OSU_WARMUP passes of them, default 1), then timed ones. latency = half a ping-pong between ranks 0 and 1;
 * bw/bibw = windows of 64 non-blocking sends (both ways for bibw) acknowledged by a zero-byte message from rank 1;
 * mbw_mr = the same window from each of the first size/2 ranks to its partner in the second half, as
 * aggregate bandwidth and message rate; collectives = time per call with a barrier between calls (not timed),
 * mean over the ranks.
 * Rank 0 prints one line per size: "test bytes value unit".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

static int rank, size;

/* Untimed passes before the timed one: OSU_WARMUP, default 1 (the same in OsuMpi.java). */
static int warmup_passes(void) {
    const char *v = getenv("OSU_WARMUP");
    return v == NULL || *v == '\0' ? 1 : atoi(v);
}

/* Iteration counts: the same function as OsuMpi.iterations. */
static int iterations(const char *test, long bytes) {
    if (!strcmp(test, "bw") || !strcmp(test, "bibw") || !strcmp(test, "mbw_mr")) {
        return bytes <= 8192 ? 200 : bytes <= 65536 ? 50 : 10;
    }
    return bytes <= 8192 ? 2000 : bytes <= 65536 ? 500 : 100;
}

static void window(char *s, char *r, long b, int peer, int sends, int recvs, int acks) {
    MPI_Request rs[2 * WINDOW];
    int k = 0;
    if (recvs) {
        for (int i = 0; i < WINDOW; i++) {
            MPI_Irecv(r, (int) b, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rs[k++]);
        }
    }
    if (sends) {
        for (int i = 0; i < WINDOW; i++) {
            MPI_Isend(s, (int) b, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rs[k++]);
        }
    }
    MPI_Waitall(k, rs, MPI_STATUSES_IGNORE);
    if (acks) {
        MPI_Send(s, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
    } else {
        MPI_Recv(r, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void body(const char *t, char *s, char *r, long b) {
    if (!strcmp(t, "latency")) {
        if (rank == 0) {
            MPI_Send(s, (int) b, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(r, (int) b, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(r, (int) b, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, (int) b, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    } else if (!strcmp(t, "bw") || !strcmp(t, "bibw")) {
        if (rank <= 1) {
            const int both = !strcmp(t, "bibw");
            window(s, r, b, 1 - rank, rank == 0 || both, rank == 1 || both, rank == 1);
        }
    } else if (!strcmp(t, "mbw_mr")) {
        const int pairs = size / 2;
        if (rank < pairs) {
            window(s, r, b, rank + pairs, 1, 0, 0);
        } else if (rank < 2 * pairs) {
            window(s, r, b, rank - pairs, 0, 1, 1);
        }
    } else if (!strcmp(t, "barrier")) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (!strcmp(t, "bcast")) {
        MPI_Bcast(s, (int) b, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else if (!strcmp(t, "reduce")) {
        MPI_Reduce(s, r, (int) (b / 4), MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else if (!strcmp(t, "allreduce")) {
        MPI_Allreduce(s, r, (int) (b / 4), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(t, "allgather")) {
        MPI_Allgather(s, (int) b, MPI_BYTE, r, (int) b, MPI_BYTE, MPI_COMM_WORLD);
    } else if (!strcmp(t, "alltoall")) {
        MPI_Alltoall(s, (int) b, MPI_BYTE, r, (int) b, MPI_BYTE, MPI_COMM_WORLD);
    }
}

static int collective(const char *t) {
    return strcmp(t, "latency") && strcmp(t, "bw") && strcmp(t, "bibw") && strcmp(t, "mbw_mr");
}

/* Seconds for n calls. A collective is timed call by call with a barrier after each (outside the time), and
   the figure is the mean over the ranks, as OSU's collective tests do. */
static double timed(const char *t, char *s, char *r, long b, int n) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (!collective(t)) {
        const double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            body(t, s, r, b);
        }
        return MPI_Wtime() - t0;
    }
    double sum = 0, all = 0;
    for (int i = 0; i < n; i++) {
        const double t0 = MPI_Wtime();
        body(t, s, r, b);
        sum += MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all / size;
}

/* OSU_SIZES=8,1048576 measures only those sizes (of the powers of two the test walks); unset: all of them */
static int wanted(long b) {
    const char *list = getenv("OSU_SIZES");
    if (!list || !*list) return 1;
    for (const char *p = list; *p; ) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p) return 0;
        if (v == b) return 1;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

static void run(const char *t, long max) {
    const int reducing = !strcmp(t, "reduce") || !strcmp(t, "allreduce");
    const int barrier = !strcmp(t, "barrier");
    long first = !strcmp(t, "latency") || barrier ? 0 : reducing ? 4 : 1;
    for (long b = first; b <= (barrier ? 0 : max); b = b == 0 ? 1 : b * 2) {
        if (!wanted(b)) continue;
        const int n = iterations(t, b);
        const long cap = (b < 4 ? 4 : b) * size;
        char *s = malloc(cap), *r = malloc(cap);
        memset(s, 1, cap);
        memset(r, 0, cap);
        for (int pass = 0; pass < warmup_passes(); pass++) {
            timed(t, s, r, b, n);
        }
        const double sec = timed(t, s, r, b, n);
        if (rank == 0) {
            const int pairs = size / 2;
            if (!strcmp(t, "latency")) {
                printf("%-10s %9ld %12.2f us\n", t, b, sec / n / 2 * 1e6);
            } else if (!strcmp(t, "bw") || !strcmp(t, "bibw")) {
                const double dir = !strcmp(t, "bibw") ? 2.0 : 1.0;
                printf("%-10s %9ld %12.2f MB/s\n", t, b, dir * b * WINDOW * n / sec / 1e6);
            } else if (!strcmp(t, "mbw_mr")) {
                printf("%-10s %9ld %12.2f MB/s\n", "mbw", b, (double) pairs * b * WINDOW * n / sec / 1e6);
                printf("%-10s %9ld %12.4f Mmsg/s\n", "mr", b, (double) pairs * WINDOW * n / sec / 1e6);
            } else {
                printf("%-10s %9ld %12.2f us\n", t, b, sec / n * 1e6);
            }
            fflush(stdout);
        }
        free(s);
        free(r);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *test = argc > 1 ? argv[1] : "all";
    const long max = argc > 2 ? atol(argv[2]) : 1L << 20;
    static const char *tests[] = {"latency", "bw", "bibw", "mbw_mr", "barrier", "bcast", "reduce", "allreduce",
                                  "allgather", "alltoall"};
    for (unsigned i = 0; i < sizeof tests / sizeof *tests; i++) {
        if (!strcmp(test, "all") || !strcmp(test, tests[i])) {
            run(tests[i], max);
        }
    }
    MPI_Finalize();
    return 0;
}
