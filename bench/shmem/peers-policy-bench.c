/*
 * peers-policy-bench: what placing blocks by other PEs' accesses buys
 * (the peers policy, docs/policies.md), under mpirun -np 2 and the policy
 * UVAS_POLICY names (scripts/peers-policy-bench.sh runs first-touch and
 * peers, alternated).
 *
 * usage: mpirun -np 2 peers-policy-bench [-k] [-b blocks] [-n puts] [-r rounds]
 *
 * The CPUs' direction (default): PE 0 writes an array of `blocks` blocks
 * (default 8) and moves it to the device, where its kernels would want
 * it, then leaves it alone. PE 1's CPU then makes `rounds` rounds
 * (default 20) of `puts` 8-byte puts (default 2000) spread over the
 * blocks, each round closed by a quiet. A put into a device-resident
 * block of a peer goes by the copy engine (microseconds); into a
 * host-resident one, by a store through the window. Prints the
 * microseconds a put of the first round, of the last, and the median
 * round's, where PE 0's blocks ended, and metric lines
 * peers_policy.POLICY.{first,median,last}_put_us and .on_host_blocks.
 *
 * The kernels' direction (-k; built where glslc is): PE 0's blocks stay
 * where its CPU wrote them, on the host, and each round is one launch of
 * PE 1's kernel putting the whole array into them (256 work-groups, a
 * slice each, bench/kernels/shmem-calls.comp mode 4), lent up front
 * (UVAS_LEASE_HOST_AFTER=0 unless the environment says otherwise): over
 * the bus into host memory, at the GPU's speed into device memory. Prints the GB/s of
 * the first, median and last launch and where the blocks ended; metric
 * lines peers_policy_kernels.POLICY.{first,median,last}_gbs and
 * .on_device_blocks.
 */
#include <shmem.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-stats.h"
#include "uvas.h"
#ifdef PEERS_BENCH_KERNELS
#include "uvas_gpu.h"

static const uint32_t spv[] =
#include "shmem-calls.spv.h"
    ;

/* shmem-calls.comp's arguments. */
struct args {
    uint64_t dest, src, nbytes;
    uint32_t iters, mode;
    int32_t pe;
    uint32_t sum_at;
};
#endif

static void must(int st, const char *what)
{
    if (st != UVAS_OK) {
        fprintf(stderr, "peers-policy-bench: %s: %s\n", what, uvas_last_error());
        shmem_global_exit(1);
    }
}

static const char *policy_name(char *name, size_t n)
{
    const char *pol = getenv("UVAS_POLICY") ? getenv("UVAS_POLICY") : "first-touch";
    snprintf(name, n, "%.*s", (int)strcspn(pol, ":"), pol);
    return pol;
}

#ifdef PEERS_BENCH_KERNELS
/* -k: PE 1's kernel puts the whole array into PE 0's, rounds times. */
static int kernels_direction(char *arr, size_t len, size_t bs, int blocks, int rounds)
{
    int me = shmem_my_pe();
    static double fig[3];
    static int on_device;
    struct uvas_gpu_info info;
    must(uvas_gpu_info(&info), "uvas_gpu_info");
    if (!info.fault_waits) {
        /* The first launch after a move reaches the moved blocks through
         * the host's request ring, which such a device's kernels cannot
         * wait for: 16 MiB of puts overflow it (docs/kernels.md). */
        if (me == 0)
            fprintf(stderr, "peers-policy-bench: -k: this device's kernels cannot wait for the "
                    "host; the kernels' direction is measured where they can\n");
        shmem_finalize();
        return 77;
    }
    if (me == 1) {
        uvas_kernel_t *k;
        must(uvas_kernel_load(spv, sizeof spv, "main", &k), "uvas_kernel_load");
        char *src = uvas_malloc(len);
        if (!src) {
            fprintf(stderr, "peers-policy-bench: uvas_malloc: %s\n", uvas_last_error());
            shmem_global_exit(1);
        }
        memset(src, 7, len);
        must(uvas_migrate(src, len, UVAS_LOC_DEVICE, 0), "uvas_migrate of the source");
        double *gbs = calloc((size_t)rounds, sizeof *gbs);
        struct args a = {(uintptr_t)arr, (uintptr_t)src, len, 1, 4, 0, 0};
        /* Its own copy of the target held too: a launch is lent the
         * peers' copies of what it holds (transport/pe/lease.c), so its
         * puts reach PE 0's memory directly, not through the host. */
        const void *held[2] = {src, arr};
        for (int r = 0; r < rounds; r++) {
            uvas_gpu_hold_t *h;
            must(uvas_gpu_hold(held, 2, &h), "uvas_gpu_hold");
            double t0 = bench_now_s();
            int rc = uvas_kernel_launch(k, (uint32_t[3]){256, 1, 1}, &a, sizeof a,
                                        UVAS_KERNEL_NO_SCAN);
            gbs[r] = (double)len / (bench_now_s() - t0) / 1e9;
            uvas_gpu_release(h);
            must(rc, "uvas_kernel_launch");
        }
        double f[3] = {gbs[0], 0, gbs[rounds - 1]};
        f[1] = bench_median_of(gbs, rounds);
        shmem_putmem(fig, f, sizeof f, 0);
        shmem_quiet();
        free(gbs);
        uvas_free(src);
        uvas_kernel_free(k);
    }
    shmem_barrier_all();
    if (me == 0) {
        for (int b = 0; b < blocks; b++) {
            struct uvas_ptr_info info;
            must(uvas_query(arr + (size_t)b * bs, &info), "uvas_query");
            on_device += info.residence == UVAS_RES_DEVICE;
        }
        for (size_t i = 0; i < len; i += 4093)
            if (arr[i] != 7) {
                fprintf(stderr, "peers-policy-bench: PE 0's byte %zu is %d, PE 1's kernel put 7\n",
                        i, arr[i]);
                shmem_global_exit(1);
            }
        char name[64];
        const char *pol = policy_name(name, sizeof name);
        printf("peers-policy-bench -k: policy %s, %d blocks on PE 0's host, PE 1's kernel puts "
               "them whole, %d launches\n", pol, blocks, rounds);
        printf("  GB/s a launch: first %.2f, median %.2f, last %.2f; PE 0's blocks on the "
               "device at the end: %d of %d\n", fig[0], fig[1], fig[2], on_device, blocks);
        printf("metric peers_policy_kernels.%s.first_gbs %.4f\n", name, fig[0]);
        printf("metric peers_policy_kernels.%s.median_gbs %.4f\n", name, fig[1]);
        printf("metric peers_policy_kernels.%s.last_gbs %.4f\n", name, fig[2]);
        printf("metric peers_policy_kernels.%s.on_device_blocks %d\n", name, on_device);
    }
    shmem_barrier_all();
    shmem_free(arr);
    shmem_finalize();
    return 0;
}
#endif

int main(int argc, char **argv)
{
    int blocks = 8, puts = 2000, rounds = 20, c;
    bool kernels = false;
    while ((c = getopt(argc, argv, "kb:n:r:")) != -1) {
        if (c == 'k')
            kernels = true;
        else if (c == 'b')
            blocks = atoi(optarg);
        else if (c == 'n')
            puts = atoi(optarg);
        else if (c == 'r')
            rounds = atoi(optarg);
        else {
            fprintf(stderr, "usage: peers-policy-bench [-k] [-b blocks] [-n puts] [-r rounds]\n");
            return 2;
        }
    }
    if (blocks < 1 || puts < 1 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "peers-policy-bench: blocks, puts >= 1, rounds 1..1000\n");
        return 2;
    }
#ifndef PEERS_BENCH_KERNELS
    if (kernels) {
        fprintf(stderr, "peers-policy-bench: -k: built without kernels (no glslc)\n");
        return 77;
    }
#endif
    /* -k: PE 0's host blocks lent to PE 1's launches up front, so its
     * kernel's puts go there directly (a lease, which the owner counts as
     * its kernels'), not first through its host's ring (16 requests a
     * block a run by default, which count as the host's: docs/kernels.md). */
    if (kernels && !getenv("UVAS_LEASE_HOST_AFTER"))
        setenv("UVAS_LEASE_HOST_AFTER", "0", 1);
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "peers-policy-bench: run with 2 PEs (mpirun -np 2)\n");
        shmem_finalize();
        return 2;
    }
    if (!shmemx_device_present()) {
        if (me == 0)
            fprintf(stderr, "peers-policy-bench: no device tier: nothing to place\n");
        shmem_finalize();
        return 77;
    }
    struct uvas_range_desc rd;
    must(uvas_range(&rd), "uvas_range");
    size_t bs = rd.block_size, len = (size_t)blocks * bs;
    char *arr = shmem_align(bs, len);
    if (!arr) {
        fprintf(stderr, "peers-policy-bench: shmem_align of %zu bytes failed\n", len);
        shmem_global_exit(1);
    }
    memset(arr, me + 1, len);
    if (me == 0 && !kernels)
        must(uvas_migrate(arr, len, UVAS_LOC_DEVICE, 0), "uvas_migrate to the device");
    shmem_barrier_all();
#ifdef PEERS_BENCH_KERNELS
    if (kernels)
        return kernels_direction(arr, len, bs, blocks, rounds);
#endif

    double *us = calloc((size_t)rounds, sizeof *us);
    if (me == 1) {
        long v = 0;
        size_t stride = len / (size_t)puts < 8 ? 8 : len / (size_t)puts & ~(size_t)7;
        for (int r = 0; r < rounds; r++) {
            double t0 = bench_now_s();
            for (int i = 0; i < puts; i++, v++)
                shmem_putmem(arr + ((size_t)i * stride) % len, &v, sizeof v, 0);
            shmem_quiet();
            us[r] = (bench_now_s() - t0) / puts * 1e6;
        }
    }
    shmem_barrier_all();
    /* Where PE 0's blocks ended; PE 1 hands its figures to PE 0 by put. */
    static double fig[3];
    static int on_host;
    if (me == 1) {
        double first = us[0], last = us[rounds - 1];
        double f[3] = {first, bench_median_of(us, rounds), last};
        shmem_putmem(fig, f, sizeof f, 0);
        shmem_quiet();
    } else {
        for (int b = 0; b < blocks; b++) {
            struct uvas_ptr_info info;
            must(uvas_query(arr + (size_t)b * bs, &info), "uvas_query");
            on_host += info.residence == UVAS_RES_HOST;
        }
    }
    shmem_barrier_all();
    if (me == 0) {
        char name[64];
        const char *pol = policy_name(name, sizeof name);
        printf("peers-policy-bench: policy %s, %d blocks on PE 0's device, PE 1's CPU puts "
               "%d x 8 B a round, %d rounds\n", pol, blocks, puts, rounds);
        printf("  us a put: first round %.3f, median %.3f, last %.3f; PE 0's blocks on the "
               "host at the end: %d of %d\n", fig[0], fig[1], fig[2], on_host, blocks);
        printf("metric peers_policy.%s.first_put_us %.4f\n", name, fig[0]);
        printf("metric peers_policy.%s.median_put_us %.4f\n", name, fig[1]);
        printf("metric peers_policy.%s.last_put_us %.4f\n", name, fig[2]);
        printf("metric peers_policy.%s.on_host_blocks %d\n", name, on_host);
    }
    free(us);
    shmem_free(arr);
    shmem_finalize();
    return 0;
}
