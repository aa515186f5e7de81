/* uvas-bench: measurements of uvas beside the reference they compare to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_metric(const char *name_fmt, double value, const char *arg)
{
    char name[128];
    snprintf(name, sizeof name, name_fmt, arg ? arg : "");
    printf("metric %s %.6g\n", name, value);
}

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *help;
} cmds[] = {
    {"first-touch", bench_first_touch,
     "[-p pages] [-r reps] [-b block]  first touch per page: uvas vs kernel demand paging"},
    {"query", bench_query, "[-n queries]  uvas_query on random pointers"},
    {"migrate", bench_migrate,
     "[-s MiB[,MiB...]] [-r reps]  uvas_migrate vs bare vkCmdCopyBuffer; CPU faults on device blocks"},
    {"kernel", bench_kernel,
     "[-s MiB] [-r reps]  a triad kernel over uvas pointers vs plain buffer device addresses"},
    {"queue", bench_queue,
     "[-n iters] [-m MiB]  alloc/launch/free loops on a queue (uvas_malloc_async) vs synchronous"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: uvas-bench <command> [options]\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(f, "  %-12s %s\n", cmds[i].name, cmds[i].help);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name))
            return cmds[i].run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "uvas-bench: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
