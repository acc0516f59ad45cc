/* The C twin of FlagPingPong.java (same file layout, same 8-byte copy, same timing). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s SIDE N FILE\n", argv[0]); return 2; }
    int side = atoi(argv[1]);
    long n = atol(argv[2]);
    int fd = open(argv[3], O_CREAT | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, 8192) != 0) { perror(argv[3]); return 1; }
    char *map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) { perror("mmap"); return 1; }
    volatile char *mine = map + (side == 0 ? 4096 : 0);
    char *peer = map + (side == 0 ? 0 : 4096);
    char src[64] = {0};
    double t0 = 0;
    for (long i = 1; i <= n; i++) {
        if (i == n / 5) t0 = now_ns();
        char sn = (char) i;
        if (side == 0) {
            src[7] = sn; memcpy(peer, src, 8); __atomic_thread_fence(__ATOMIC_RELEASE);
            while (mine[7] != sn) { }
        } else {
            while (mine[7] != sn) { }
            src[7] = sn; memcpy(peer, src, 8); __atomic_thread_fence(__ATOMIC_RELEASE);
        }
    }
    if (side == 0) printf("c one-way %.4f us\n", (now_ns() - t0) / 1e3 / (n - n / 5) / 2);
    return 0;
}
