/*
 * Seed 003's examples (HIP's stream-ordered allocator) in uvas's names:
 *  1. a kernel on memory from uvas_malloc_async, copied back in queue
 *     order, freed with uvas_free_async, then a sync;
 *  2. a pool of its own with a release threshold, allocations from it in
 *     queue order, and its usage statistics;
 *  3. trimming the default pool to 512 KiB after a 1 MiB allocation.
 * Prints what it did and exits 0; 77 when no device runs kernels.
 */
#include <stdio.h>
#include <stdlib.h>

#include "uvas.h"
#include "uvas_gpu.h"
#include "uvas_queue.h"

static const uint32_t double_index_spv[] =
#include "double-index.spv.h"
    ;

#define N 1024

static int fail(const char *what)
{
    fprintf(stderr, "queue-pool: %s: %s\n", what, uvas_last_error());
    return 1;
}

static void print_usage(const char *when, uvas_pool_t *p)
{
    struct uvas_pool_usage u;
    if (uvas_pool_get_usage(p, &u) == 0)
        printf("  %-22s reserved %8zu (high %8zu)  used %8zu (high %8zu)\n", when, u.reserved,
               u.reserved_high, u.used, u.used_high);
}

int main(void)
{
    uvas_kernel_t *k;
    int rc = uvas_kernel_load(double_index_spv, sizeof double_index_spv, "main", &k);
    if (rc == UVAS_ERR_NO_DEVICE) {
        printf("queue-pool: no device runs kernels here: %s\n", uvas_last_error());
        return 77;
    }
    if (rc)
        return fail("uvas_kernel_load");
    uvas_queue_t *q;
    if (uvas_queue_create(&q))
        return fail("uvas_queue_create");

    /* 1. allocate in queue order, compute, copy back, free in queue order */
    int *data = uvas_malloc_async(N * sizeof *data, q);
    if (!data)
        return fail("uvas_malloc_async");
    struct { uint64_t data; uint32_t n; } args = {(uintptr_t)data, N};
    static int host[N];
    if (uvas_queue_launch(q, k, (uint32_t[3]){(N + 255) / 256, 1, 1}, &args, sizeof args, 0) ||
        uvas_queue_copy(q, host, data, sizeof host) || uvas_free_async(data, q) ||
        uvas_queue_sync(q))
        return fail("queue work");
    for (int i = 0; i < N; i++)
        if (host[i] != 2 * i) {
            fprintf(stderr, "queue-pool: element %d is %d, expected %d\n", i, host[i], 2 * i);
            return 1;
        }
    printf("1. kernel on uvas_malloc_async memory: elements 0..%d = 2*i (element 1023: %d)\n",
           N - 1, host[N - 1]);

    /* 2. a pool with a release threshold of 256 KiB */
    struct uvas_pool_props props = {UVAS_POOL_UNIFIED, 256 << 10, UVAS_POOL_REUSE_ALL};
    uvas_pool_t *pool;
    if (uvas_pool_create(&props, &pool))
        return fail("uvas_pool_create");
    printf("2. a pool, release threshold 256 KiB:\n");
    void *p[4];
    for (int i = 0; i < 4; i++)
        if (!(p[i] = uvas_malloc_from_pool_async(256 << 10, pool, q)))
            return fail("uvas_malloc_from_pool_async");
    print_usage("four 256 KiB live", pool);
    for (int i = 0; i < 4; i++)
        uvas_free_async(p[i], q);
    print_usage("freed in queue order", pool);
    uvas_queue_sync(q);
    print_usage("after the sync", pool);
    uvas_pool_reset_high(pool);
    print_usage("watermarks reset", pool);
    if (uvas_pool_destroy(pool))
        return fail("uvas_pool_destroy");

    /* 3. trim the default pool */
    uvas_pool_t *def;
    uvas_pool_get_default(&def);
    uvas_pool_set_threshold(def, UINT64_MAX); /* keep everything at syncs */
    void *big = uvas_malloc_async(1 << 20, q);
    uvas_free_async(big, q);
    uvas_queue_sync(q);
    printf("3. the default pool after a 1 MiB allocation and free:\n");
    print_usage("threshold: keep all", def);
    uvas_pool_trim_to(def, 512 << 10);
    print_usage("trimmed to 512 KiB", def);
    uvas_pool_set_threshold(def, 0);

    uvas_queue_destroy(q);
    uvas_kernel_free(k);
    /* The pools' cached memory is uvas memory: finalize gives it all back. */
    return uvas_finalize() ? fail("uvas_finalize") : 0;
}
