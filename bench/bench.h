/* uvas-bench: one subcommand per measurement, each printing its headline
 * figure as the last line so scripts can pick it up. */
#ifndef UVAS_BENCH_H
#define UVAS_BENCH_H

#include <stdint.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int bench_first_touch(int argc, char **argv);
int bench_query(int argc, char **argv);
int bench_migrate(int argc, char **argv);
int bench_kernel(int argc, char **argv);
int bench_queue(int argc, char **argv);

/* A figure for the performance guard (scripts/perf-check.py): a line
 * "metric NAME VALUE", NAME from a printf format with one %s. */
void bench_metric(const char *name_fmt, double value, const char *arg);

/* Median of n doubles (sorts in place). */
double bench_median(double *v, int n);

#endif
