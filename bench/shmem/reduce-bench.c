/*
 * reduce-bench: the time of a sum reduction of doubles over every PE, by
 * size, written to the classic OpenSHMEM 1.4 API (shmem_double_sum_to_all)
 * so that the same source builds against uvas (uvascc) and Open MPI's
 * OSHMEM (oshcc); scripts/reduce-bench.sh runs both and prints the ratio.
 *
 * Each size runs a warm-up, then reps calls between barriers; PE 0 prints
 * the median over rounds of the mean time a call took, in microseconds:
 *   reduce BYTES US
 * and checks every result against the sum it computes itself
 * (exit 1 on a wrong element). "done" last.
 *
 * usage: reduce-bench [-q] [-m MAXBYTES]
 *   -q           quick mode (fewer rounds)
 *   -m MAXBYTES  largest vector in bytes (default 8 MiB; K/M suffixes)
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long psync[2][SHMEM_REDUCE_SYNC_SIZE];

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* PE p's element i: small integers, so that any order of additions gives
 * the same sum (the specification leaves the order to the library). */
static double value(int p, size_t i)
{
    return (double)((i * 7 + (size_t)p * 13) % 101);
}

int main(int argc, char **argv)
{
    int quick = 0;
    size_t maxbytes = 8u << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-q")) {
            quick = 1;
        } else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            char *end;
            maxbytes = strtoull(argv[++i], &end, 10);
            if (*end == 'K' || *end == 'k')
                maxbytes <<= 10;
            else if (*end == 'M' || *end == 'm')
                maxbytes <<= 20;
        } else {
            fprintf(stderr, "usage: %s [-q] [-m MAXBYTES]\n", argv[0]);
            return 2;
        }
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++)
        psync[0][k] = psync[1][k] = SHMEM_SYNC_VALUE;
    size_t maxn = maxbytes / sizeof(double);
    if (maxn < 1)
        maxn = 1;
    double *src = shmem_malloc(maxn * sizeof *src);
    double *dst = shmem_malloc(maxn * sizeof *dst);
    size_t wrk_n = maxn / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? maxn / 2 + 1
                                                                 : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    double *wrk = shmem_malloc(wrk_n * sizeof *wrk);
    if (!src || !dst || !wrk) {
        fprintf(stderr, "reduce-bench: shmem_malloc of %zu bytes failed\n", 3 * maxbytes);
        shmem_global_exit(1);
    }
    for (size_t i = 0; i < maxn; i++)
        src[i] = value(me, i);
    if (me == 0)
        printf("reduce-bench: %d PEs, double sum over every PE, us a call\n", n);
    int bad = 0, rounds = quick ? 3 : 7, call = 0;
    for (size_t bytes = 8; bytes <= maxbytes; bytes *= 8) {
        size_t cnt = bytes / sizeof(double);
        int reps = bytes <= 4096 ? (quick ? 200 : 1000) : bytes <= (256u << 10) ? 40 : 8;
        double t[16];
        for (int r = -1; r < rounds; r++) {
            shmem_barrier_all();
            double t0 = now_us();
            for (int k = 0; k < reps; k++, call++)
                shmem_double_sum_to_all(dst, src, (int)cnt, 0, 0, n, wrk, psync[call % 2]);
            double dt = (now_us() - t0) / reps;
            if (r >= 0)
                t[r] = dt;
        }
        for (size_t i = 0; i < cnt && !bad; i++) {
            double want = 0;
            for (int p = 0; p < n; p++)
                want += value(p, i);
            if (dst[i] != want) {
                fprintf(stderr, "reduce-bench: PE %d: %zu bytes: element %zu is %.17g, the "
                        "sum is %.17g\n", me, bytes, i, dst[i], want);
                bad = 1;
            }
        }
        qsort(t, (size_t)rounds, sizeof *t, cmp);
        if (me == 0)
            printf("reduce %zu %.3f\n", bytes, t[rounds / 2]);
        if (bytes * 8 > maxbytes && bytes < maxbytes)
            bytes = maxbytes / 8; /* the largest size is measured too */
    }
    shmem_barrier_all();
    if (me == 0) {
        printf("done\n");
        fflush(stdout);
    }
    shmem_free(wrk);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return bad;
}
