/*
 * Medians over repetitions per workload x policy, and the terminal table.
 */
#ifndef UVAS_EXP_SUMMARY_H
#define UVAS_EXP_SUMMARY_H

#include <stdio.h>

#include "exp.h"

struct exp_cell {
    unsigned runs, ok;       /* repetitions run, and completed */
    unsigned data_differs;   /* completed runs whose final data differ */
    const char *error;       /* the first failed run's message, or NULL */
    /* medians over the completed repetitions */
    double time_s, throughput, to_device, to_host, faults, faults_device, evictions,
        device_max;
};

/* Compare the checksums of the completed runs of each workload: sets every
 * run's data field; prints a warning per workload x policy that differs.
 * The number of runs that differ. */
size_t summary_check_data(FILE *warn, const struct exp_config *cfg, struct exp_run *runs,
                          size_t nruns);

/* cells[w * npolicies + p]; free() it. */
struct exp_cell *summary_compute(const struct exp_config *cfg, const struct exp_run *runs,
                                 size_t nruns);
void summary_print(FILE *out, const struct exp_config *cfg, const struct exp_cell *cells);

#endif
