/*
 * The progress display on stderr: one line rewritten with \r when stderr
 * is a terminal, a plain line per finished run otherwise; when quiet,
 * only a line per failed run.
 */
#ifndef UVAS_EXP_PROGRESS_H
#define UVAS_EXP_PROGRESS_H

#include <stddef.h>

#include "exp.h"

struct progress {
    size_t total, done;
    int tty, quiet, dirty;
    double t0;
};

void progress_init(struct progress *pg, size_t total, int quiet);
/* A run starts. */
void progress_begin(struct progress *pg, const char *workload, const char *policy,
                    unsigned rep, unsigned reps);
/* It ended with r. On a terminal a failed run leaves a line of its own,
 * unless `repeat` (the same error as an earlier run: a rejected policy). */
void progress_end(struct progress *pg, const char *workload, const char *policy,
                  unsigned rep, unsigned reps, const struct exp_result *r, int repeat);
/* Clear the line; the summary follows. */
void progress_finish(struct progress *pg);

#endif
