/*
 * Result files in the output directory: results.csv (one row per run),
 * results.json (the configuration, every run with its residency timeline,
 * the medians), timeline.csv (every sample of every run), summary.csv (the
 * medians). Columns are described in docs/experiments.md.
 */
#ifndef UVAS_EXP_OUTPUT_H
#define UVAS_EXP_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "exp.h"
#include "summary.h"

/* Create dir (and its parents) if needed and open it, or -1 with err set.
 * It must be a directory of this user that nobody else can write to, not
 * a symlink: another user's directory could hold a symlink or a FIFO where
 * a result or a gnuplot script goes. */
int output_mkdir(const char *dir, char *err, size_t errlen);
/* The same for name in the directory at (path: how to call it in err). */
int output_dir_open(int at, const char *path, const char *name, char *err, size_t errlen);
/* Create or truncate name in the directory dfd: a regular file only, never
 * through a symlink, nor a FIFO. NULL with err set (path names it). */
FILE *output_fopen(int dfd, const char *name, const char *path, char *err, size_t errlen);

/* Write every file. 0, or -1 with err naming the file and the reason. */
int output_write(const struct exp_config *cfg, const struct exp_run *runs, size_t nruns,
                 const struct exp_cell *cells, char *err, size_t errlen);

#endif
