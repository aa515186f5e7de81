/*
 * The kernels' shared context (gpu/context.c): the translation table, the
 * request ring, the descriptor set and pipeline layout every kernel uses,
 * the compute queue's command buffers, and the lists of live kernels and
 * holds; made at the first load, hold or query, torn down by
 * uvas_finalize. Private to the gpu floor: kernel.c (kernel objects),
 * run.c (launches), user_hold.c (the program's holds) share it.
 */
#ifndef UVAS_GPU_CONTEXT_H
#define UVAS_GPU_CONTEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/hold.h"
#include "gpu/ring.h"
#include "gpu/spirv.h"
#include "gpu/xlat.h"
#include "uvas/list.h"
#include "uvas/vulkan.h"

struct uvas_kernel {
    struct uvas_link link; /* the context's live kernels (uvas_gpu.kernels) */
    VkShaderModule mod;
    VkPipeline pipe;
    struct uvas_spirv_info info;
    char entry[64];
};

/* A run records and submits its launches in chunks of growing size (the
 * first UVAS_GPU_RUN_CHUNK0, then twice as many each time, the last
 * taking the rest), so the device runs one chunk while the next is
 * recorded: a driver may take as long to record a dispatch as a small
 * kernel runs (docs/queues.md). A run of up to twice UVAS_GPU_RUN_CHUNK0
 * launches is one submission. */
#define UVAS_GPU_RUN_CBS 8
#define UVAS_GPU_RUN_CHUNK0 8

struct uvas_gpu_hold {
    struct uvas_link link;    /* uvas_gpu.holds (uvas_gpu.mu, and user_hold.c's holds_mu) */
    struct uvas_link counted; /* uvas_gpu.counted (xlat.run) */
    struct uvas_hold_set set;
    /* The bytes it keeps from a free (uvas_gpu_holds): the allocations
     * asked for, or the range. Blocks are held whole, but a slab block's
     * other allocations are not the hold's. */
    struct held_bytes {
        uintptr_t lo, hi;
    } *bytes;
    size_t nbytes;
};

struct uvas_gpu_context {
    pthread_mutex_t mu;  /* the context, the lists (then xlat.run, if both) */
    bool up;
    struct uvas_vulkan *d;
    struct uvas_xlat xlat;
    struct uvas_ring ring; /* kernels' requests to the host (a run's: xlat.run) */
    VkDescriptorSetLayout dsl;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    uint32_t push;        /* push-constant bytes every kernel may use */
    VkCommandPool cpool;
    VkCommandBuffer cb[UVAS_GPU_RUN_CBS]; /* a run's, one per chunk of its launches */
    VkFence fence;
    VkQueryPool stamps;   /* a run's start and end on the device's clock */
    double ns_per_tick;   /* 0: the compute queue keeps no timestamps */
    uint8_t *served;      /* a bit per block: a request served this run */
    size_t *served_list;  /* those blocks, to clear the bits after */
    struct uvas_link kernels;
    struct uvas_link holds;
    struct uvas_link counted; /* holds whose blocks runs count (xlat.run) */
};

extern struct uvas_gpu_context uvas_gpu;

/* The context, made on first use (uvas_gpu.mu held). Status. */
int uvas_gpu_context_up(void);
/* Its device objects gone (uvas_gpu.mu held). */
void uvas_gpu_context_down(void);
/* Can a faulting access wait for uvas on this device (context up)? */
bool uvas_gpu_fault_waits(void);
/* uvas_finalize's part (uvas_gpu.mu held): every kernel's device
 * objects, every hold of the program's. */
void uvas_gpu_kernels_down(void);
void uvas_gpu_holds_down(void);

#endif
