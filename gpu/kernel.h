/*
 * Kernels on the device, the gpu floor's calls (the public ones are
 * uvas/api/kernel.c's, which start uvas and count themselves in): kernel
 * objects (kernel.c), launches: hold, run, look at the faults, run again
 * or fail (run.c), the program's own holds (user_hold.c) and the
 * teardown (teardown.c), all over the shared context (context.h:
 * translation table, descriptor set, pipeline layout, the compute queue's
 * command buffers), made at the first use and torn down by uvas_finalize.
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
int uvas_gpu_kernel_stats(struct uvas_kernel *k, struct uvas_kernel_stat *out, size_t max,
                          size_t *n);
int uvas_gpu_get_info(struct uvas_gpu_info *out);
int uvas_gpu_hold_ptrs(const void *const *ptrs, size_t n, struct uvas_gpu_hold **out);
int uvas_gpu_hold_span(const void *ptr, size_t len, struct uvas_gpu_hold **out);
void uvas_gpu_release_hold(struct uvas_gpu_hold *h);
/* Does a hold of the program's (uvas_gpu_hold) keep a byte of
 * [p, p+n): an allocation it was asked for, or the range it was asked
 * for? (A launch's own holds are not counted: they end with it.) */
bool uvas_gpu_holds(const void *p, size_t n);

/* uvas_finalize: every kernel's device objects go (the structs stay the
 * user's: a launch of one then fails), and the context. */
void uvas_gpu_fini(void);
/* What the PE layer (above this floor) lends kernels of an OpenSHMEM
 * job: include/shmem.glsl's shmem_my_pe and shmem_n_pes (0 and 1 until
 * it starts), who serves the requests kernels post in the ring
 * (gpu/ring.h: puts, gets and atomics to other PEs; NULL refuses them),
 * and leases on other PEs' device memory that kernels reach directly
 * (transport/pe/lease.h): before each run, run_begin gives the leases'
 * table (its device address, 0: none) and lease is offered the blocks the
 * run holds (sorted block indices; their symmetric copies at other PEs);
 * after the run, once the kernels have finished and the ring is served,
 * run_end ends what the run was lent. Any hook may be NULL. */
struct uvas_gpu_pe {
    int me, n;
    uvas_ring_serve_fn serve;
    uint64_t (*run_begin)(void);
    void (*lease)(const size_t *blocks, size_t n);
    void (*run_end)(void);
};
/* NULL: none (PE 0 of 1, nothing served or lent). */
void uvas_gpu_set_pe(const struct uvas_gpu_pe *pe);

#endif
