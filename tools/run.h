/*
 * One run of a workload under one policy, in a forked child process that
 * initialises uvas with that policy, so that every run starts clean. The
 * child sends its struct exp_result and residency samples over a pipe.
 */
#ifndef UVAS_EXP_RUN_H
#define UVAS_EXP_RUN_H

#include "exp.h"
#include "workloads.h"

/* Fills *r and *samples (malloc'd, r->nsamples of them; may be NULL). A
 * failure of the run (uvas_init, the workload, a crash, a timeout) is
 * reported in r->ok / r->error; -1 only when no child could be started. */
int run_one(const struct exp_config *cfg, const struct workload *wl, const char *policy,
            struct exp_result *r, struct exp_sample **samples);

#endif
