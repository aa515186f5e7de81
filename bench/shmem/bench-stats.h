/*
 * Timing and medians for the uvas-built OpenSHMEM benchmarks (path-bench,
 * migrate-peers-bench). shmem-bench.c keeps its own: it is one file that
 * builds with any OpenSHMEM's compiler.
 */
#ifndef BENCH_SHMEM_STATS_H
#define BENCH_SHMEM_STATS_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static inline double bench_median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
