/* The native anchor of bench/mpi/FileCollectiveBench.java: NP ranks, N ints each, through a view that
 * interleaves the ranks one int at a time, MPI_File_write_at_all then MPI_File_read_at_all under the hints
 * romio_cb_write/romio_cb_read = automatic, enable, disable, alternating, REPS rounds; rank 0 prints medians.
 *   mpicc -O2 -o /tmp/file_cb bench/mpi/file_cb.c && mpirun -np 2 /tmp/file_cb DIR N REPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    int n = argc > 2 ? atoi(argv[2]) : 1 << 18;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    char name[4096];
    snprintf(name, sizeof name, "%s/ompi-cb-bench.dat", dir);
    MPI_Datatype strided;
    MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint) size * 4, &strided);
    MPI_Type_commit(&strided);
    int *data = malloc((size_t) n * sizeof(int)), *back = malloc((size_t) n * sizeof(int));
    for (int i = 0; i < n; i++) data[i] = rank + i * size;
    const char *modes[] = {"automatic", "enable", "disable"};
    double w[3][64], r[3][64];
    if (reps > 64) reps = 64;
    for (int k = 0; k < reps; k++) {
        for (int m = 0; m < 3; m++) {
            MPI_Info info;
            MPI_Info_create(&info);
            MPI_Info_set(info, "romio_cb_write", modes[m]);
            MPI_Info_set(info, "romio_cb_read", modes[m]);
            MPI_File f;
            MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info, &f);
            MPI_File_set_view(f, (MPI_Offset) rank * 4, MPI_INT, strided, "native", info);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_File_write_at_all(f, 0, data, n, MPI_INT, MPI_STATUS_IGNORE);
            w[m][k] = MPI_Wtime() - t0;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            MPI_File_read_at_all(f, 0, back, n, MPI_INT, MPI_STATUS_IGNORE);
            r[m][k] = MPI_Wtime() - t0;
            if (back[n - 1] != data[n - 1]) { fprintf(stderr, "read back %d, wrote %d\n", back[n - 1], data[n - 1]); MPI_Abort(MPI_COMM_WORLD, 1); }
            MPI_File_close(&f);
            MPI_Info_free(&info);
        }
    }
    if (rank == 0) {
        printf("# %d ranks x %d ints interleaved one int at a time, %d rounds, medians (Open MPI)\n", size, n, reps);
        for (int m = 0; m < 3; m++)
            printf("romio_cb_*=%-10s writeAtAll %9.2f ms   readAtAll %9.2f ms\n", modes[m], median(w[m], reps) * 1e3, median(r[m], reps) * 1e3);
    }
    MPI_Finalize();
    return 0;
}
