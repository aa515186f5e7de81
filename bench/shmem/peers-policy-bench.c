/*
 * peers-policy-bench: what placing blocks by other PEs' accesses buys
 * (the peers policy, docs/policies.md), under mpirun -np 2 and the policy
 * UVAS_POLICY names (scripts/peers-policy-bench.sh runs first-touch and
 * peers, alternated).
 *
 * usage: mpirun -np 2 peers-policy-bench [-b blocks] [-n puts] [-r rounds]
 *
 * PE 0 writes an array of `blocks` blocks (default 8) and moves it to the
 * device, where its kernels would want it, then leaves it alone. PE 1's
 * CPU then makes `rounds` rounds (default 20) of `puts` 8-byte puts
 * (default 2000) spread over the blocks, each round closed by a quiet.
 * A put into a device-resident block of a peer goes by the copy engine
 * (microseconds); into a host-resident one, by a store through the
 * window. Prints the microseconds a put of the first round, of the last,
 * and the median round's, where PE 0's blocks ended, and metric lines
 * peers_policy.POLICY.{first,median,last}_put_us and .on_host_blocks.
 */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-stats.h"
#include "uvas.h"

static void must(int st, const char *what)
{
    if (st != UVAS_OK) {
        fprintf(stderr, "peers-policy-bench: %s: %s\n", what, uvas_last_error());
        shmem_global_exit(1);
    }
}

int main(int argc, char **argv)
{
    int blocks = 8, puts = 2000, rounds = 20, c;
    while ((c = getopt(argc, argv, "b:n:r:")) != -1) {
        if (c == 'b')
            blocks = atoi(optarg);
        else if (c == 'n')
            puts = atoi(optarg);
        else if (c == 'r')
            rounds = atoi(optarg);
        else {
            fprintf(stderr, "usage: peers-policy-bench [-b blocks] [-n puts] [-r rounds]\n");
            return 2;
        }
    }
    if (blocks < 1 || puts < 1 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "peers-policy-bench: blocks, puts >= 1, rounds 1..1000\n");
        return 2;
    }
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
    if (me == 0)
        must(uvas_migrate(arr, len, UVAS_LOC_DEVICE, 0), "uvas_migrate to the device");
    shmem_barrier_all();

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
        const char *pol = getenv("UVAS_POLICY") ? getenv("UVAS_POLICY") : "first-touch";
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(pol, ":"), pol);
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
