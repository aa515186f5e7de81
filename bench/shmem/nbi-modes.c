/*
 * nbi-modes: the 8 B non-blocking put rate, five rounds of 0.1 s, PE 0 to
 * PE 1 (which waits in shmem_barrier_all). Standard OpenSHMEM: build it
 * with uvascc and with oshcc and run each a few times to see the per-run
 * modes docs/performance.md describes.
 *
 *   tools/uvascc -O2 -o nbi-uvas bench/shmem/nbi-modes.c
 *   mpirun -np 2 ./nbi-uvas
 */
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    shmem_init();
    const size_t bytes = (size_t)4 << 20;
    char *src = shmem_malloc(bytes), *dst = shmem_malloc(bytes);
    if (!src || !dst) {
        fprintf(stderr, "nbi-modes: shmem_malloc failed\n");
        shmem_global_exit(1);
    }
    memset(src, 1, bytes);
    memset(dst, 0, bytes);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        for (int r = 0; r < 5; r++) {
            long n = 0;
            double t0 = now(), t;
            while ((t = now() - t0) < 0.1) {
                for (int w = 0; w < 64; w++)
                    shmem_putmem_nbi(dst, src, 8, 1);
                shmem_quiet();
                n += 64;
            }
            printf("round %d: %.1f ns a put, %.1f MB/s\n", r, t / (double)n * 1e9,
                   8.0 * (double)n / t / 1e6);
        }
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
