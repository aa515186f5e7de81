/*
 * Kernels over uvas pointers: Vulkan compute kernels (SPIR-V) that use the
 * same addresses as the CPU.
 *
 *     uvas_kernel_t *k;
 *     uvas_kernel_load(spirv, bytes, "main", &k);
 *     struct { uint64_t a, b, c; float s; uint32_t n; } args = {a, b, c, 2.0f, n};
 *     uvas_kernel_launch(k, (uint32_t[3]){(n + 255) / 256, 1, 1}, &args, sizeof args, 0);
 *
 * A kernel reaches memory through include/uvas.glsl (uvas_load_u32(addr),
 * uvas_store_f32(addr, v), uvas_atomic_add_u64(addr, v), ...): each access
 * is translated in software (Vulkan has no GPU page faults) through a
 * per-block table that uvas keeps. Its arguments are its push-constant
 * block: plain uvas pointers (as uint64_t) and scalars.
 *
 * Before a launch runs, every 8-byte-aligned value of the arguments that
 * points into a live uvas allocation makes that whole allocation reachable
 * (UVAS_KERNEL_NO_SCAN turns the scan off): untouched blocks are placed by
 * the policy as the GPU's first touch, host blocks are migrated or read in
 * place over the bus as the policy decides, and every block is held where
 * it is until the kernel has finished (a migration of it waits; a CPU
 * access to a held device-resident block waits; the rest of the range
 * moves freely). An access to memory the arguments did not name (a
 * pointer read from memory) finds no translation and waits while uvas
 * makes its block reachable, then goes on (every access executes once).
 * Where it cannot wait (UVAS_KERNEL_NO_WAIT, or a device that bounds
 * shader loops: lavapipe; uvas_gpu_info says), it goes to a scratch area,
 * and after the run the launch either runs the kernel again with that
 * allocation reachable (UVAS_KERNEL_IDEMPOTENT: the kernel may run twice)
 * or fails naming the first such address. An address outside every live
 * allocation fails the launch with its address; it never reaches device
 * memory that is not its own.
 *
 * Synchronous: uvas_kernel_launch returns when the kernel has finished and
 * its writes are visible to the CPU. Launches from several threads are
 * run one at a time. uvas_kernel_launch_batch runs several in one
 * submission (what a uvas queue does with its backlog: uvas_queue.h).
 *
 * Errors: the status codes of uvas.h with uvas_last_error(); no device
 * that can run kernels is UVAS_ERR_NO_DEVICE (docs/kernels.md says what a
 * device needs).
 */
#ifndef UVAS_GPU_H
#define UVAS_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "uvas.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

typedef struct uvas_kernel uvas_kernel_t;

/* uvas_kernel_launch flags (0: scan the arguments, faults wait). */
#define UVAS_KERNEL_NO_SCAN 0x1u    /* do not look for pointers in the arguments */
#define UVAS_KERNEL_IDEMPOTENT 0x2u /* may be run again after a fault that was not served */
#define UVAS_KERNEL_NO_WAIT 0x4u    /* a fault does not wait: its access goes nowhere */

/* Load the compute entry point `entry` of a SPIR-V module (bytes: a
 * multiple of 4). Starts uvas if needed. Status. */
int uvas_kernel_load(const void *spirv, size_t bytes, const char *entry, uvas_kernel_t **out);
/* Run k over groups[0] x groups[1] x groups[2] work-groups with args as its
 * push-constant block (args_size: a multiple of 4, at most the device's
 * limit, uvas_gpu_info's max_args). Status. */
int uvas_kernel_launch(uvas_kernel_t *k, const uint32_t groups[3], const void *args,
                       size_t args_size, unsigned flags);
void uvas_kernel_free(uvas_kernel_t *k);

/* What the device's compiler made of a kernel, as its driver reports it
 * (VK_KHR_pipeline_executable_properties): NVIDIA's "Register Count"
 * bounds how many work-groups a multiprocessor holds at once (occupancy),
 * which sets how many waves a grid takes. */
struct uvas_kernel_stat {
    char name[VK_MAX_DESCRIPTION_SIZE]; /* the driver's name for it */
    char description[VK_MAX_DESCRIPTION_SIZE];
    double value;          /* booleans 0 or 1 */
};
/* Up to max of k's statistics into out; *n: how many the driver reports
 * (more than max: the rest were left out). Compiles k once more, so call
 * it when tuning, not per launch. UVAS_ERR_NO_DEVICE where the driver
 * reports none. Status. */
int uvas_kernel_stats(uvas_kernel_t *k, struct uvas_kernel_stat *out, size_t max, size_t *n);

/* One launch of a batch: the arguments of uvas_kernel_launch. */
struct uvas_launch {
    uvas_kernel_t *kernel;
    uint32_t groups[3];
    const void *args;
    size_t args_size;
    unsigned flags;
};
/* Run n launches in order, as n calls of uvas_kernel_launch would (each
 * kernel sees what those before it wrote; the CPU sees everything when it
 * returns), as one run with one wait for each run of consecutive launches
 * with the same flags (up to 1024), where a launch alone pays its own:
 * tens of microseconds on a GPU. A run goes to the device in chunks, the
 * device running one while the next is recorded. What a launch makes
 * reachable stays held until its run's kernels have all finished. A
 * faulting access that cannot wait sends the whole run again only if
 * every launch in it is UVAS_KERNEL_IDEMPOTENT (it is, then: their flags
 * are the same). The first launch refused (bad arguments, named by its
 * index) or failing stops the batch: the launches of earlier runs have
 * run, none after it runs (a run whose later chunk could not be submitted
 * returns once its earlier chunks ran, and says so). Status. */
int uvas_kernel_launch_batch(const struct uvas_launch *l, size_t n);

/* The device kernels run on, for a Vulkan program of the user's own that
 * builds its pipelines over uvas memory: bind `set` (layout `set_layout`:
 * binding 0, the translation table, a storage buffer) at set 0 and use
 * include/uvas.glsl. Such work reaches only blocks someone holds: hold
 * its memory with uvas_gpu_hold while it runs. */
struct uvas_gpu_info {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;           /* of the queue kernels run on */
    VkBuffer xlat_buffer;            /* the translation table */
    VkDeviceSize xlat_size;
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
    uint32_t max_args;               /* bytes of a kernel's arguments */
    int shared_queue;                /* kernels and migrations share one queue */
    int fault_waits;                 /* a fault waits in the kernel (else: replay or fail) */
    /* A kernel's atomic on host-resident memory is atomic with the CPU's
     * on the same word. Only where the device is the CPU (lavapipe): a
     * GPU's atomics cross the bus, and on the H100's PCIe host they lost
     * CPU adds (tests/gpu/test-gpu-host-atomics.c, docs/kernels.md).
     * Kernels' atomics among themselves are atomic everywhere. */
    int host_atomics;
    /* uvas.glsl's specialization constants (ids 2032 to 2036): a pipeline
     * of the user's own sets them to these (2036 may stay 0: uvas_array
     * then reads the address from the table). */
    uint64_t range_base;
    uint32_t block_shift, nblocks;
    uint32_t fault_waits_spec;       /* VkBool32 for id 2035: fault_waits */
    uint64_t runs_address;           /* id 2036: where the table's runs are */
};
int uvas_gpu_info(struct uvas_gpu_info *out);

/* For such work: make the allocations holding ptrs[0, n) reachable and
 * hold them (as a launch does) until uvas_gpu_release. Held memory is not
 * freed: uvas_free and uvas_realloc of it fail (UVAS_ERR_INVAL) until the
 * hold is released. Status. */
typedef struct uvas_gpu_hold uvas_gpu_hold_t;
int uvas_gpu_hold(const void *const *ptrs, size_t n, uvas_gpu_hold_t **out);
/* The same for the blocks of [ptr, ptr + len) only, which must lie inside
 * one live allocation: a kernel launched with UVAS_KERNEL_NO_SCAN then
 * reaches exactly those (and faults elsewhere), and the policy sees the
 * device touch those blocks and no others. Accesses kernels count in held
 * blocks reach the policy when a launch's run ends. Status. */
int uvas_gpu_hold_range(const void *ptr, size_t len, uvas_gpu_hold_t **out);
void uvas_gpu_release(uvas_gpu_hold_t *h);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* UVAS_GPU_H */
