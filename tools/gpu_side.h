/*
 * The GPU's part of a workload: a compute kernel (kernels/touch.comp) that
 * reads or writes the bytes through uvas pointers, as any kernel would
 * (its accesses translated, faulted, counted), or, as a named option,
 * uvas_device_access's copy-engine reads and writes (the stand-in used
 * before kernels ran on uvas memory, or where a device cannot run them).
 */
#ifndef UVAS_EXP_GPU_SIDE_H
#define UVAS_EXP_GPU_SIDE_H

#include <stddef.h>
#include <stdint.h>

#include "uvas_gpu.h"

enum gpu_side_mode { GPU_SIDE_KERNEL = 0, GPU_SIDE_COPY = 1 };

struct gpu_side {
    enum gpu_side_mode mode;
    uvas_kernel_t *k;
    uint32_t *sum;        /* host-heap word the kernel adds reads into */
    uint32_t max_groups;  /* a grid that fills the device, no larger */
};

/* Status; on failure a message in err. */
int gpu_side_open(struct gpu_side *g, enum gpu_side_mode mode, char *err, size_t errlen);
/* The GPU reads (write 0; *sum gets the 32-bit sum of the range's words,
 * bytes outside the range masked off; 0 in copy mode) or writes value over
 * [p, p + len); g is a struct gpu_side (workloads.h's gpu hook). 0, or
 * -1 with a message in err. */
int gpu_side_touch(void *g, void *p, size_t len, int write, unsigned char value, uint32_t *sum,
                   char *err, size_t errlen);
void gpu_side_close(struct gpu_side *g);

const char *gpu_side_name(enum gpu_side_mode mode);

#endif
