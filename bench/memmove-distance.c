// glibc memmove throughput by how far the destination lies ahead of the source (modulo 4 KiB), in cache,
// on one core: the measurement behind MemoryCopy.slowForLibc. Build and run:
//   gcc -O2 -o /tmp/memmove-distance bench/memmove-distance.c && taskset -c 1 /tmp/memmove-distance 65536
// prints one line per distance: bytes, distance, best ns per copy of 5 x 2000, GB/s.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 65536;
    const size_t area = n + 2 * 4096;
    char *src = mmap(NULL, area, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *dst = mmap(NULL, area, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (src == MAP_FAILED || dst == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(src, 1, area);
    memset(dst, 2, area);
    static const int distances[] = {0, 1, 4, 8, 15, 16, 17, 24, 32, 48, 63, 64, 128, 2048, 4032, 4080, 4095};
    for (size_t k = 0; k < sizeof distances / sizeof distances[0]; k++) {
        const int d = distances[k];
        double best = 1e18;
        for (int r = 0; r < 5; r++) {
            const double t0 = now_ns();
            for (int i = 0; i < 2000; i++) {
                memmove(dst + d, src, n);
            }
            const double t = (now_ns() - t0) / 2000;
            best = t < best ? t : best;
        }
        printf("%zu bytes, destination %4d ahead: %8.0f ns %6.1f GB/s\n", n, d, best, n / best);
    }
    return 0;
}
