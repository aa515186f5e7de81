/*
 * The workloads of uvas-exp. Each runs in a fresh process over one buffer
 * from uvas_aligned_alloc: the CPU's part as ordinary loads and stores, the
 * GPU's part as compute kernels over the same pointers (or, as a named
 * option, the copy engine: gpu_side.h). A workload calls wl_phase() at the end
 * of each of its phases: that is where the runner samples residency.
 */
#ifndef UVAS_EXP_WORKLOADS_H
#define UVAS_EXP_WORKLOADS_H

#include <stddef.h>
#include <stdint.h>

#include "exp.h"

struct trace;

struct wl_ctx {
    unsigned char *buf;
    size_t len;               /* buffer bytes (buffer_bytes() below) */
    size_t block_size;
    size_t ws;                /* the working set asked for (-m) */
    uint64_t seed;            /* the workload's seed (rng_seed_for) */
    const struct trace *trace;
    /* The GPU's part: read (write 0; *sum: the 32-bit sum of the words,
     * bytes outside the range masked off) or write value over [p, p+len).
     * 0, or -1 with a message in err. uvas-exp's is gpu_side.h's;
     * bench/cuda's runs CUDA kernels on managed memory. */
    int (*gpu)(void *arg, void *p, size_t len, int write, unsigned char value, uint32_t *sum,
               char *err, size_t errlen);
    void *gpu_arg;
    int gpu_sums;             /* *sum is real (not the copy engine's 0) */
    uint64_t bytes_cpu, bytes_device; /* accounting of bytes touched */
    uint64_t sink;            /* every value the CPU read, mixed */
    char *err;                /* a failing workload writes why here */
    size_t errlen;
    void (*phase)(void *arg); /* the runner's residency sampler */
    void *phase_arg;
    /* 1 when [p, p+len) was never touched: it reads as zero, and reading it
     * would commit it (a sparse trace's whole extent). NULL: read it all. */
    int (*untouched)(const void *p, size_t len);
};

struct workload {
    const char *name;
    const char *summary; /* one line for --help */
    /* Bytes of buffer the workload needs (a multiple of block_size). */
    size_t (*buffer_bytes)(size_t ws, size_t block_size, const struct trace *t);
    /* 0, or -1 with ctx->err set. */
    int (*run)(struct wl_ctx *c);
    int builtin;         /* part of the default list */
};

extern const struct workload exp_workloads[];
extern const size_t exp_nworkloads;

const struct workload *workload_find(const char *name);

/* The run's result: the buffer's final contents and every value read.
 * Untouched blocks (c->untouched) count as the zeros they read as, without
 * being read. */
uint64_t wl_checksum(const struct wl_ctx *c);

#endif
