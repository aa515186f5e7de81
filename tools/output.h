/*
 * Result files in the output directory: results.csv (one row per run),
 * results.json (the configuration, every run with its residency timeline,
 * the medians), timeline.csv (every sample of every run), summary.csv (the
 * medians). Columns are described in docs/experiments.md.
 */
#ifndef UVAS_EXP_OUTPUT_H
#define UVAS_EXP_OUTPUT_H

#include <stddef.h>

#include "exp.h"
#include "summary.h"

/* Create dir (and its parents) if needed. 0, or -1 with err set. */
int output_mkdir(const char *dir, char *err, size_t errlen);

/* Write every file. 0, or -1 with err naming the file and the reason. */
int output_write(const struct exp_config *cfg, const struct exp_run *runs, size_t nruns,
                 const struct exp_cell *cells, char *err, size_t errlen);

#endif
