/*
 * Queue-ordered work over uvas memory (as CUDA streams and HIP's
 * stream-ordered allocator): kernel launches, migrations (prefetch),
 * copies and host functions enqueued on a queue run in the order they were
 * enqueued, one after the other, while the enqueuing thread goes on;
 * events mark a point of a queue that the CPU or another queue can wait
 * for. Allocation and free take effect in queue order too:
 *
 *     uvas_queue_t *q;
 *     uvas_queue_create(&q);
 *     float *x = uvas_malloc_async(n * sizeof *x, q);
 *     uvas_queue_launch(q, k, groups, &args, sizeof args, 0);   // uses x
 *     uvas_free_async(x, q);
 *     float *y = uvas_malloc_async(n * sizeof *y, q);           // x's memory, at once
 *     uvas_queue_sync(q);
 *
 * The memory uvas_malloc_async returns is an ordinary uvas allocation
 * (queries, policies, RMA, kernels all apply) from a pool; work enqueued on
 * q after the allocation and before the free may use it. After
 * uvas_free_async the memory goes back to the pool at that point of q: a
 * later allocation on the same queue may reuse it at once (everything it
 * is used for runs after the free's point), another queue only when the
 * pool's reuse policy proves the point passed (UVAS_POOL_REUSE_*).
 *
 * Errors: the status codes of uvas.h with uvas_last_error(). An enqueued
 * operation that fails makes the queue skip the rest of what was enqueued
 * before the next uvas_queue_sync, which returns that first error (with
 * its message) and clears it. What is not checked (docs/queues.md): a use
 * of memory before its allocation point or after its free point by work
 * not ordered with it; uvas_free of a pointer from uvas_malloc_async.
 */
#ifndef UVAS_QUEUE_H
#define UVAS_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "uvas.h"
#include "uvas_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

typedef struct uvas_queue uvas_queue_t;
typedef struct uvas_event uvas_event_t;
typedef struct uvas_pool uvas_pool_t;

/* ---- queues ------------------------------------------------------------ */

int uvas_queue_create(uvas_queue_t **out);
/* Waits for the queue's work, then frees it. Events recorded on it stay
 * valid (complete). Status of the work, as uvas_queue_sync. */
int uvas_queue_destroy(uvas_queue_t *q);
/* Wait until everything enqueued on q so far has run; then the pools keep
 * at most their release threshold of memory no allocation uses. The first
 * error of that work (see above), else 0. */
int uvas_queue_sync(uvas_queue_t *q);

/* Enqueue: a kernel launch (as uvas_kernel_launch; args are copied, k must
 * stay loaded until it has run), a migration of [ptr, ptr + len) to
 * location (as uvas_migrate: a queue-ordered prefetch), a copy of n bytes
 * (either side may be uvas memory), a call of fn(arg) on the queue's
 * thread (fn must not wait for its own queue's later work: its sync or
 * destroy, or the sync of an event recorded after it, is refused there
 * with UVAS_ERR_INVAL). Each returns once enqueued (bad arguments: at
 * once). */
int uvas_queue_launch(uvas_queue_t *q, uvas_kernel_t *k, const uint32_t groups[3],
                      const void *args, size_t args_size, unsigned flags);
int uvas_queue_migrate(uvas_queue_t *q, const void *ptr, size_t len, int location);
int uvas_queue_copy(uvas_queue_t *q, void *dst, const void *src, size_t n);
int uvas_queue_host_fn(uvas_queue_t *q, void (*fn)(void *), void *arg);

/* ---- events -------------------------------------------------------------- */

int uvas_event_create(uvas_event_t **out);
void uvas_event_destroy(uvas_event_t *ev);
/* ev marks the point of q after everything enqueued so far (again: the
 * new point replaces the old). */
int uvas_event_record(uvas_event_t *ev, uvas_queue_t *q);
/* Wait until the point has passed (an event never recorded has). Status. */
int uvas_event_sync(uvas_event_t *ev);
/* 1 if the point has passed, 0 if not yet, or a negative status. */
int uvas_event_query(uvas_event_t *ev);
/* Work enqueued on q after this runs only once ev's point has passed (the
 * point as recorded now). Status. */
int uvas_queue_wait_event(uvas_queue_t *q, uvas_event_t *ev);

/* ---- queue-ordered allocation and pools ------------------------------------- */

/* Where a pool's memory lives: placed by the policy on first touch and
 * moved at run time (as uvas_malloc), or kept on the host or the device
 * (UVAS_HINT_HOST, UVAS_HINT_DEVICE). */
enum uvas_pool_location { UVAS_POOL_UNIFIED = 0, UVAS_POOL_HOST = 1, UVAS_POOL_DEVICE = 2 };

/* When memory freed at a point of one queue may serve an allocation on
 * another (the same queue always may). */
#define UVAS_POOL_REUSE_FOLLOW_EVENTS 0x1u  /* the queue waited for an event past the point */
#define UVAS_POOL_REUSE_OPPORTUNISTIC 0x2u  /* the point has passed already */
#define UVAS_POOL_REUSE_INTERNAL_DEPS 0x4u  /* else make the queue wait for it, not grow */
#define UVAS_POOL_REUSE_ALL 0x7u

struct uvas_pool_props {
    int location;             /* enum uvas_pool_location */
    size_t release_threshold; /* unused memory kept at uvas_queue_sync (bytes) */
    unsigned reuse;           /* UVAS_POOL_REUSE_* bits */
};

struct uvas_pool_usage {
    size_t reserved, reserved_high; /* bytes the pool holds (allocations and cache) */
    size_t used, used_high;         /* bytes in live allocations */
};

int uvas_pool_create(const struct uvas_pool_props *props, uvas_pool_t **out);
/* Refused while the pool has live allocations (UVAS_ERR_INVAL, naming how
 * many); else waits for the free points of its cached memory and frees it. */
int uvas_pool_destroy(uvas_pool_t *p);
/* The pool uvas_malloc_async takes from: unified, threshold 0, every reuse
 * policy. */
int uvas_pool_get_default(uvas_pool_t **out);
/* Free cached memory whose free points have passed until the pool holds
 * at most keep bytes (allocations are never touched). Status. */
int uvas_pool_trim_to(uvas_pool_t *p, size_t keep);
int uvas_pool_set_threshold(uvas_pool_t *p, size_t release_threshold);
int uvas_pool_get_usage(uvas_pool_t *p, struct uvas_pool_usage *out);
/* The high watermarks back to the current values. */
int uvas_pool_reset_high(uvas_pool_t *p);

/* size 0 or a bad queue: NULL with errno (uvas_last_error says). */
void *uvas_malloc_async(size_t size, uvas_queue_t *q);
void *uvas_malloc_from_pool_async(size_t size, uvas_pool_t *p, uvas_queue_t *q);
/* ptr from uvas_malloc_async (any pool); NULL does nothing. A pointer from
 * elsewhere: UVAS_ERR_INVAL (uvas_malloc's: free it with uvas_free) or
 * UVAS_ERR_NOT_OWNED; freed before: UVAS_ERR_DOUBLE_FREE. */
int uvas_free_async(void *ptr, uvas_queue_t *q);

/*
 * Sharing a pool with another process of the node (docs/queues.md), as
 * cudaMemPoolExportToShareableHandle and friends. Unified pools cannot be
 * shared (their memory moves). An exported pool keeps its memory until it
 * is destroyed (trim and the release threshold leave it); an importer's
 * use of an allocation after the exporter freed it is its bug, as with
 * CUDA's pools. Only processes of the same user import.
 *
 * UVAS_POOL_HOST: the descriptor is the exporter's host tier, which the
 * importer maps (uvas_ipc_*, uvas.h; it reaches all of the exporter's
 * host-resident memory, as a PE's window does its peers'); the importer
 * needs no uvas_init.
 *
 * UVAS_POOL_DEVICE: the descriptor is a channel to the exporter, one per
 * importer (call uvas_pool_export once for each). An exported allocation's
 * blocks stay in their device slots from then on (no migration, eviction
 * or copy moves them), and the importer, which needs uvas_init and the
 * same device and UVAS_BLOCK_SIZE, maps that device memory into blocks of
 * its own range: a device-resident uvas pointer there, for kernels and
 * copies. The CPU of either side reaches such blocks only where device
 * memory maps in place (lavapipe's descriptors); elsewhere a CPU access
 * gets SIGBUS after a message, as CUDA's device pools are not
 * CPU-accessible either.
 */
/* *fd: a new descriptor to pass to the other process (SCM_RIGHTS over a
 * Unix socket); the caller closes its copy. */
int uvas_pool_export(uvas_pool_t *p, int *fd);
/* In the other process: a pool of the exporter's memory, from which
 * allocations come only by uvas_pool_import_pointer. fd is checked
 * (UVAS_ERR_PERM: not a uvas pool's descriptor of this user) and kept (a
 * duplicate: the caller may close fd). uvas_pool_destroy unmaps what was
 * imported. */
int uvas_pool_import(int fd, uvas_pool_t **out);
/* What names one allocation of an exported pool for its importer: plain
 * bytes, to send by any means. A device pool's record is sent after its
 * descriptors down the pool's channels: export the pool before the pointer. */
struct uvas_pool_ptr_data {
    struct uvas_ipc_handle h; /* h.magic UVAS_IPC_MAGIC or UVAS_POOL_DEV_MAGIC */
};
#define UVAS_POOL_DEV_MAGIC 0x3156454450534156ull /* "VASPDEV1" */
int uvas_pool_export_pointer(void *ptr, struct uvas_pool_ptr_data *out);
/* *ptr: the allocation mapped here, coherent with the exporter's. */
int uvas_pool_import_pointer(uvas_pool_t *imported, const struct uvas_pool_ptr_data *data,
                             void **ptr);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* UVAS_QUEUE_H */
