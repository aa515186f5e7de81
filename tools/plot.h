/*
 * Plots with gnuplot (Debian: gnuplot-nox): throughput.png, the median
 * throughput per policy for every workload, and residency-<workload>.png,
 * the residency of the workload's buffer over time, a panel per policy.
 * Data and scripts stay in DIR/plot/ so a plot can be redrawn by hand.
 * Without gnuplot, or when it fails, a message says so and nothing fails.
 */
#ifndef UVAS_EXP_PLOT_H
#define UVAS_EXP_PLOT_H

#include <stddef.h>

#include "exp.h"
#include "summary.h"

/* Remove the PNGs and plot/ files an earlier experiment left in
 * cfg->outdir (the names plot_all writes, for every workload): plots that
 * no longer match the results beside them. */
void plot_remove_stale(const struct exp_config *cfg);
/* Number of PNG files written. */
int plot_all(const struct exp_config *cfg, const struct exp_run *runs, size_t nruns,
             const struct exp_cell *cells);

#endif
