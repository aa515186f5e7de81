/*
 * uvas-bench queue: queue-ordered allocation in a loop, as a program that
 * allocates per kernel does: for each size, iterations of
 * uvas_malloc_async, a kernel that writes every element, uvas_free_async,
 * all on one queue, then one sync. Time per iteration (enqueueing and
 * running), and the memory the pool holds at the end. Beside it, the same
 * loop with uvas_malloc/uvas_free and a synchronous launch (what a
 * program without queues does). bench/cuda/malloc-async.cu runs the loop
 * on cudaMallocAsync/cudaFreeAsync (scripts/device-run.sh queue).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "uvas.h"
#include "uvas_gpu.h"
#include "uvas_queue.h"

#ifdef UVAS_BENCH_KERNELS
static const uint32_t fill_spv[] =
#include "fill.spv.h"
    ;
static const uint32_t fill_array_spv[] =
#include "fill-array.spv.h"
    ;
#endif

struct fill_args {
    uint64_t x;
    uint32_t n, v;
};

/* "m.SIZE.field" (m: queue, or queue_array for -A). */
static void queue_metric(const char *m, const char *field, double value, const char *size)
{
    char fmt[64];
    snprintf(fmt, sizeof fmt, "%s.%%s.%s", m, field);
    bench_metric(fmt, value, size);
}

/* A workgroup per 256 elements, at most max_groups (1024 by default, as
 * bench/cuda/malloc-async.cu's grid; -g sets both). */
static uint32_t groups_for(size_t n, uint32_t max_groups)
{
    size_t g = (n + 255) / 256;
    return g > max_groups ? max_groups : (uint32_t)g;
}

int bench_queue(int argc, char **argv)
{
#ifndef UVAS_BENCH_KERNELS
    (void)argc;
    (void)argv;
    fprintf(stderr, "queue: not built (no glslc when uvas was configured)\n");
    return 77;
#else
    int iters = 1000;
    size_t max_mib = 64;
    long max_groups = 1024;
    int opt, array = 0;
    optind = 1;
    while ((opt = getopt(argc, argv, "n:m:g:A")) != -1) {
        if (opt == 'n')
            iters = atoi(optarg);
        else if (opt == 'm')
            max_mib = strtoull(optarg, NULL, 10);
        else if (opt == 'g')
            max_groups = atol(optarg);
        else if (opt == 'A')
            array = 1;
        else {
            fprintf(stderr, "usage: uvas-bench queue [-n iterations] [-m max MiB] "
                            "[-g max workgroups] [-A: the kernel through uvas_array]\n");
            return 2;
        }
    }
    if (iters < 1 || max_groups < 1 || max_groups > 65535) {
        fprintf(stderr, "queue: -n must be at least 1, -g from 1 to 65535\n");
        return 2;
    }
    uvas_kernel_t *k;
    /* -A: the same fill through uvas.glsl's uvas_array, its metrics
     * named queue_array. */
    const char *m = array ? "queue_array" : "queue";
    if (array ? uvas_kernel_load(fill_array_spv, sizeof fill_array_spv, "main", &k)
             : uvas_kernel_load(fill_spv, sizeof fill_spv, "main", &k)) {
        fprintf(stderr, "queue: %s\n", uvas_last_error());
        return uvas_last_error()[0] ? 77 : 1;
    }
    /* What the compiler made of the kernel (registers bound how many
     * work-groups run at once, so how many waves a grid takes). */
    struct uvas_kernel_stat ks[32];
    size_t nks = 0;
    if (uvas_kernel_stats(k, ks, 32, &nks) == UVAS_OK)
        for (size_t i = 0; i < nks && i < 32; i++)
            printf("queue: fill kernel: %s = %g\n", ks[i].name, ks[i].value);
    uvas_queue_t *q;
    uvas_pool_t *pool;
    if (uvas_queue_create(&q) || uvas_pool_get_default(&pool)) {
        fprintf(stderr, "queue: %s\n", uvas_last_error());
        return 1;
    }
    /* Warm up: the first launch builds the pipeline. */
    void *w = uvas_malloc(4096);
    struct fill_args wa = {(uintptr_t)w, 1024, 0};
    if (!w || uvas_kernel_launch(k, (uint32_t[3]){4, 1, 1}, &wa, sizeof wa, 0)) {
        fprintf(stderr, "queue: warm-up: %s\n", uvas_last_error());
        return 1;
    }
    uvas_free(w);
    /* and the loop itself, untimed (the queue's thread, the pool's first
     * use), as bench/cuda/malloc-async.cu does */
    for (int i = 0; i < 100; i++) {
        void *p = uvas_malloc_async(4096, q);
        wa.x = (uintptr_t)p;
        if (!p || uvas_queue_launch(q, k, (uint32_t[3]){4, 1, 1}, &wa, sizeof wa, 0) ||
            uvas_free_async(p, q)) {
            fprintf(stderr, "queue: warm-up: %s\n", uvas_last_error());
            return 1;
        }
    }
    if (uvas_queue_sync(q)) {
        fprintf(stderr, "queue: warm-up: %s\n", uvas_last_error());
        return 1;
    }
    printf("queue: %d iterations per size of alloc, a kernel writing every element%s, free "
           "(at most %ld workgroups of 256)\n", iters, array ? " through uvas_array" : "",
           max_groups);
    printf("  %10s %16s %16s %14s\n", "size", "async us/iter", "sync us/iter", "reserved end");
    static const size_t sizes[] = {4u << 10, 64u << 10, 1u << 20, 16u << 20, 64u << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t size = sizes[s];
        if (size > max_mib << 20)
            break;
        struct fill_args a = {0, (uint32_t)(size / 4), 0};
        uint32_t groups[3] = {groups_for(size / 4, (uint32_t)max_groups), 1, 1};
        struct uvas_stats st0, st1;
        uvas_stats_get(&st0);
        uint64_t t0 = bench_now_ns();
        for (int i = 0; i < iters; i++) {
            void *p = uvas_malloc_async(size, q);
            a.x = (uintptr_t)p;
            a.v = (uint32_t)i;
            if (!p || uvas_queue_launch(q, k, groups, &a, sizeof a, 0) ||
                uvas_free_async(p, q)) {
                fprintf(stderr, "queue: iteration %d: %s\n", i, uvas_last_error());
                return 1;
            }
        }
        double enqueue_us = (double)(bench_now_ns() - t0) / 1e3 / iters;
        if (uvas_queue_sync(q)) {
            fprintf(stderr, "queue: %s\n", uvas_last_error());
            return 1;
        }
        double async_us = (double)(bench_now_ns() - t0) / 1e3 / iters;
        uvas_stats_get(&st1);
        /* Where the time went: the enqueuing thread's share, the device's
         * (timestamps around each submission: the kernels and the barriers
         * between them), and how many submissions the backlog made. */
        double gpu_us = (double)(st1.kernel_gpu_ns - st0.kernel_gpu_ns) / 1e3 / iters;
        uint64_t subs = st1.kernel_submissions - st0.kernel_submissions;
        struct uvas_pool_usage u;
        uvas_pool_get_usage(pool, &u);
        /* The same without queues: allocate, launch (synchronous), free. */
        t0 = bench_now_ns();
        for (int i = 0; i < iters; i++) {
            void *p = uvas_malloc(size);
            a.x = (uintptr_t)p;
            if (!p || uvas_kernel_launch(k, groups, &a, sizeof a, 0)) {
                fprintf(stderr, "queue: sync iteration %d: %s\n", i, uvas_last_error());
                return 1;
            }
            uvas_free(p);
        }
        double sync_us = (double)(bench_now_ns() - t0) / 1e3 / iters;
        char name[32];
        snprintf(name, sizeof name, "%zuK", size >> 10);
        printf("  %10s %16.1f %16.1f %13zuK   (enqueue %.1f, device %.1f us/iter, %llu "
               "submissions)\n",
               name, async_us, sync_us, u.reserved >> 10, enqueue_us, gpu_us,
               (unsigned long long)subs);
        queue_metric(m, "enqueue_us", enqueue_us, name);
        queue_metric(m, "device_us", gpu_us, name);
        queue_metric(m, "submissions", (double)subs, name);
        queue_metric(m, "async_us", async_us, name);
        queue_metric(m, "sync_us", sync_us, name);
        queue_metric(m, "reserved_kib", (double)(u.reserved >> 10), name);
    }
    uvas_queue_destroy(q);
    uvas_kernel_free(k);
    return 0;
#endif
}
