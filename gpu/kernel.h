/*
 * Kernels on the device (the public calls are uvas/api/kernel.c's, which
 * start uvas and count themselves in): the shared context (translation
 * table, descriptor set, pipeline layout, the compute queue's command
 * buffer), made at the first load and torn down by uvas_finalize, and the
 * launch: hold, run, look at the faults, run again or fail.
 */
#ifndef UVAS_GPU_KERNEL_H
#define UVAS_GPU_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/ring.h"
#include "uvas_gpu.h"

int uvas_gpu_kernel_load(const void *spirv, size_t bytes, const char *entry,
                         struct uvas_kernel **out);
int uvas_gpu_kernel_launch(struct uvas_kernel *k, const uint32_t groups[3], const void *args,
                           size_t args_size, unsigned flags);
/* uvas_kernel_launch_batch; fn names the caller in messages. */
int uvas_gpu_kernel_launch_batch(const struct uvas_launch *l, size_t n, const char *fn);
void uvas_gpu_kernel_free(struct uvas_kernel *k);
int uvas_gpu_get_info(struct uvas_gpu_info *out);
int uvas_gpu_hold_ptrs(const void *const *ptrs, size_t n, struct uvas_gpu_hold **out);
int uvas_gpu_hold_span(const void *ptr, size_t len, struct uvas_gpu_hold **out);
void uvas_gpu_release_hold(struct uvas_gpu_hold *h);

/* uvas_finalize: every kernel's device objects go (the structs stay the
 * user's: a launch of one then fails), and the context. */
void uvas_gpu_fini(void);
/* The OpenSHMEM PE that launches kernels, and the job's PEs, as
 * include/shmem.glsl's shmem_my_pe and shmem_n_pes read them (0 and 1
 * until the PE layer starts; set by it, below which this floor is), and
 * who serves the requests kernels post in the ring (gpu/ring.h: puts,
 * gets and atomics to other PEs; NULL refuses them). */
void uvas_gpu_set_pe(int me, int n, uvas_ring_serve_fn serve);

#endif
