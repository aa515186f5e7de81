/* Medians per workload x policy and the summary table. */
#include "summary.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t summary_check_data(FILE *warn, const struct exp_config *cfg, struct exp_run *runs,
                          size_t nruns)
{
    size_t bad = 0;
    for (size_t w = 0; w < cfg->nworkloads; w++) {
        /* The most common checksum among the completed runs. */
        uint64_t ref = 0;
        size_t best = 0;
        for (size_t i = 0; i < nruns; i++) {
            if (runs[i].w != w || !runs[i].r.ok)
                continue;
            size_t n = 0;
            for (size_t j = 0; j < nruns; j++)
                n += runs[j].w == w && runs[j].r.ok && runs[j].r.checksum == runs[i].r.checksum;
            if (n > best) {
                best = n;
                ref = runs[i].r.checksum;
            }
        }
        for (size_t i = 0; i < nruns; i++)
            if (runs[i].w == w && runs[i].r.ok) {
                runs[i].data = runs[i].r.checksum == ref ? EXP_DATA_SAME : EXP_DATA_DIFFERS;
                bad += runs[i].data == EXP_DATA_DIFFERS;
            }
        for (size_t p = 0; p < cfg->npolicies && warn; p++) {
            char reps[256] = "";
            size_t len = 0, n = 0;
            for (size_t i = 0; i < nruns; i++)
                if (runs[i].w == w && runs[i].p == p && runs[i].data == EXP_DATA_DIFFERS &&
                    len < sizeof reps)
                    len += (size_t)snprintf(reps + len, sizeof reps - len, "%s%u",
                                            n++ ? ", " : "", runs[i].rep);
            if (n)
                fprintf(warn, "uvas-exp: WARNING: %s under %s (repetition%s %s): the final "
                              "data differ from the other runs of %s (checksum 0x%016llx in "
                              "%zu runs): the library lost or corrupted writes\n",
                        cfg->workloads[w], cfg->policies[p], n == 1 ? "" : "s", reps,
                        cfg->workloads[w], (unsigned long long)ref, best);
        }
    }
    return bad;
}

struct exp_cell *summary_compute(const struct exp_config *cfg, const struct exp_run *runs,
                                 size_t nruns)
{
    size_t ncells = cfg->nworkloads * cfg->npolicies;
    struct exp_cell *cells = calloc(ncells ? ncells : 1, sizeof *cells);
    double *v = malloc((nruns ? nruns : 1) * sizeof *v);
    if (!cells || !v) {
        free(cells);
        free(v);
        return NULL;
    }
    for (size_t ci = 0; ci < ncells; ci++) {
        struct exp_cell *c = &cells[ci];
        size_t w = ci / cfg->npolicies, p = ci % cfg->npolicies;
#define MEDIAN(field, expr)                                                         \
        do {                                                                        \
            size_t n = 0;                                                           \
            for (size_t i = 0; i < nruns; i++)                                      \
                if (runs[i].w == w && runs[i].p == p && runs[i].r.ok)               \
                    v[n++] = (double)(expr);                                        \
            c->field = median(v, n);                                                \
        } while (0)
        for (size_t i = 0; i < nruns; i++) {
            if (runs[i].w != w || runs[i].p != p)
                continue;
            c->runs++;
            if (runs[i].r.ok)
                c->ok++;
            else if (!c->error)
                c->error = runs[i].r.error;
            if (runs[i].data == EXP_DATA_DIFFERS)
                c->data_differs++;
        }
        MEDIAN(time_s, runs[i].r.wall_s);
        MEDIAN(throughput, runs[i].r.wall_s > 0 ? runs[i].r.bytes_touched / runs[i].r.wall_s
                                                : 0);
        MEDIAN(to_device, runs[i].r.migrations_to_device);
        MEDIAN(to_host, runs[i].r.migrations_to_host);
        MEDIAN(faults, runs[i].r.faults);
        MEDIAN(faults_device, runs[i].r.faults_device);
        MEDIAN(evictions, runs[i].r.evictions);
        MEDIAN(device_max, runs[i].r.device_blocks_max);
#undef MEDIAN
    }
    free(v);
    return cells;
}

void summary_print(FILE *out, const struct exp_config *cfg, const struct exp_cell *cells)
{
    size_t pw = 6, ww = 8;
    for (size_t p = 0; p < cfg->npolicies; p++)
        if (strlen(cfg->policies[p]) > pw)
            pw = strlen(cfg->policies[p]);
    for (size_t w = 0; w < cfg->nworkloads; w++)
        if (strlen(cfg->workloads[w]) > ww)
            ww = strlen(cfg->workloads[w]);
    int iw = (int)ww, ip = (int)pw;
    fprintf(out, "\nmedians over repetitions (migrations and evictions in blocks; faults: "
                 "CPU faults / CPU touches of device blocks)\n");
    fprintf(out, "%-*s  %-*s  %4s  %9s  %10s  %8s  %8s  %9s  %8s  %8s  %7s\n", iw, "workload",
            ip, "policy", "runs", "time ms", "MB/s", "to-dev", "to-host", "faults",
            "dev-flt", "evicted", "dev-max");
    for (size_t w = 0; w < cfg->nworkloads; w++)
        for (size_t p = 0; p < cfg->npolicies; p++) {
            const struct exp_cell *c = &cells[w * cfg->npolicies + p];
            fprintf(out, "%-*s  %-*s  %2u/%-1u", iw, cfg->workloads[w], ip, cfg->policies[p],
                    c->ok, c->runs);
            if (c->ok)
                fprintf(out, "  %9.1f  %10.1f  %8.0f  %8.0f  %9.0f  %8.0f  %8.0f  %7.0f",
                        c->time_s * 1e3, c->throughput / 1e6, c->to_device, c->to_host,
                        c->faults, c->faults_device, c->evictions, c->device_max);
            if (c->data_differs)
                fprintf(out, "  DATA DIFFERS in %u run%s", c->data_differs,
                        c->data_differs == 1 ? "" : "s");
            if (c->error)
                fprintf(out, "  error: %s", c->error);
            fputc('\n', out);
        }
}
