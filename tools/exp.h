/*
 * uvas-exp: what one run (workload x policy x repetition) measures, and
 * the experiment's configuration. Shared by every file of the runner.
 */
#ifndef UVAS_EXP_H
#define UVAS_EXP_H

#include <stddef.h>
#include <stdint.h>

#define EXP_MAX_SAMPLES 4096 /* residency samples kept per run */
#define EXP_ERRLEN 512

/* One residency sample, taken at a phase boundary of a workload. */
struct exp_sample {
    double t_s;            /* seconds since the workload started (sampling excluded) */
    uint32_t phase;        /* phase boundaries passed so far (0: the start) */
    uint32_t host;         /* blocks of the workload's buffer per residence */
    uint32_t device;
    uint32_t unpopulated;
    uint32_t device_tier;  /* stats.tier[DEVICE].blocks (the whole range) */
};

/* What a run reports; sent by the child over a pipe as it is, followed by
 * nsamples struct exp_sample. */
struct exp_result {
    int ok;                      /* 1: the run completed; 0: error[] says why */
    char error[EXP_ERRLEN];
    char device[200];            /* uvas_range().device_note */
    char fault[120];             /* the fault path in effect */
    double wall_s;               /* workload time, residency sampling excluded */
    uint64_t bytes_touched;      /* bytes read or written, CPU + device */
    uint64_t bytes_cpu, bytes_device;
    uint64_t faults, faults_device;
    uint64_t migrations_to_device, migrations_to_host;
    uint64_t bytes_to_device, bytes_to_host;
    uint64_t evictions;
    uint64_t device_blocks_end, device_blocks_max, device_capacity_blocks;
    uint64_t buffer_bytes, buffer_blocks, block_size;
    uint64_t checksum;           /* final contents and every CPU read value */
    uint32_t nsamples;
    uint32_t samples_dropped;    /* phase boundaries past EXP_MAX_SAMPLES */
};

struct trace;

/* The experiment as the command line gave it. */
struct exp_config {
    const char **workloads;  /* names, in run order */
    size_t nworkloads;
    char **policies;         /* policy strings as given to uvas_init */
    size_t npolicies;
    unsigned reps;
    size_t ws_bytes;         /* working set (-m) */
    size_t block_size;       /* 0: the library's default */
    size_t device_bytes;     /* device tier capacity; 0: the library's default */
    uint64_t seed;
    const char *outdir;
    int outfd;               /* outdir, opened once it was found safe (output_mkdir) */
    const char *trace_path;
    struct trace *trace;
    int quiet;
    int plots;
    unsigned timeout_s;      /* per run */
    int gpu_side;            /* enum gpu_side_mode: kernels, or the copy engine */
};

/* One finished run, as the parent keeps it. */
struct exp_run {
    size_t w, p;             /* indices into the config's lists */
    unsigned rep;            /* 1-based */
    struct exp_result r;
    struct exp_sample *samples;
    int data;                /* enum exp_data: the checksum against the others */
};

/* Every run of a workload ends with the same contents, whatever the policy:
 * a checksum that differs from the most common one means lost data. */
enum exp_data { EXP_DATA_UNCHECKED = 0, EXP_DATA_SAME = 1, EXP_DATA_DIFFERS = 2 };

#endif
