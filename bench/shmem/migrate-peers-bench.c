/*
 * migrate-peers-bench: what running peers cost a PE's migrations (the
 * light gate slots of docs/transport.md: once peers of the node have put
 * to a PE, each batch of up to 64 host-resident blocks it migrates runs a
 * heavy fence, a barrier on every CPU running a thread of a joined
 * process, which interrupts the peers that are running).
 *
 * usage: mpirun -np 2 migrate-peers-bench [-s MiB] [-r reps]
 *
 * PE 0 moves an array of its own to the device and back, timed, while
 * PE 1 (which has put to PE 0, so its slot is in use)
 *   idle  sleeps, waking each millisecond to look for the end, or
 *   busy  spins on its core, as a computing PE does,
 * at 2 MiB (one block: one fence a migration) and at -s MiB (default
 * 256). The phases alternate -r times (default 5); medians. Prints GB/s
 * per phase and metric lines migrate_peers.SIZE.{idle,busy}_gbs. On a
 * machine whose cores the two PEs fill (2 cores), busy also measures PE 1
 * taking a core. Linked against libuvas.so, so that an A/B can run the
 * same program over two libraries (LD_LIBRARY_PATH): one with light
 * slots, one without.
 */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-stats.h"
#include "uvas.h"

static void must(int st, const char *what)
{
    if (st != UVAS_OK) {
        fprintf(stderr, "migrate-peers-bench: %s: %s\n", what, uvas_last_error());
        shmem_global_exit(1);
    }
}

/* Seconds for one round trip of [p, p + len): to the device and back. */
static double round_trip(char *p, size_t len)
{
    double t0 = bench_now_s();
    must(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0), "uvas_migrate to the device");
    must(uvas_migrate(p, len, UVAS_LOC_HOST, 0), "uvas_migrate to the host");
    return bench_now_s() - t0;
}

int main(int argc, char **argv)
{
    size_t mib = 256;
    int reps = 5, c;
    while ((c = getopt(argc, argv, "s:r:")) != -1) {
        if (c == 's')
            mib = strtoul(optarg, NULL, 10);
        else if (c == 'r')
            reps = atoi(optarg);
        else {
            fprintf(stderr, "usage: migrate-peers-bench [-s MiB] [-r reps]\n");
            return 2;
        }
    }
    if (mib < 2 || reps < 1) {
        fprintf(stderr, "migrate-peers-bench: -s takes 2 or more MiB, -r 1 or more reps\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        if (me == 0)
            fprintf(stderr, "migrate-peers-bench: run it with 2 PEs (mpirun -np 2)\n");
        shmem_finalize();
        return 77;
    }
    size_t sizes[2] = {2u << 20, mib << 20};
    char *arr = shmem_malloc(sizes[1]);
    long *flag = shmem_malloc(sizeof *flag);
    volatile long *done = shmem_malloc(sizeof *done);
    if (!arr || !flag || !done) {
        fprintf(stderr, "migrate-peers-bench: shmem_malloc of %zu MiB failed\n", mib);
        shmem_global_exit(1);
    }
    memset(arr, 1, sizes[1]);
    *flag = 0;
    struct uvas_range_desc rd;
    if (uvas_range(&rd) != UVAS_OK || !rd.device_present) {
        if (me == 0)
            fprintf(stderr, "migrate-peers-bench: no device tier: %s\n", rd.device_note);
        shmem_finalize();
        return 77;
    }
    double *t[2][2];
    for (int s = 0; s < 2; s++)
        for (int ph = 0; ph < 2; ph++)
            t[s][ph] = calloc((size_t)reps, sizeof(double));
    if (me == 1) { /* PE 1's slot in PE 0's table in use from here on */
        long one = 1;
        shmem_putmem(flag, &one, sizeof one, 0);
        shmem_quiet();
    }
    shmem_barrier_all();
    if (me == 0) /* warm: the device tier's slabs, the imports */
        for (int s = 0; s < 2; s++)
            round_trip(arr, sizes[s]);
    for (int r = 0; r < reps; r++)
        for (int ph = 0; ph < 2; ph++) {
            *done = 0;
            shmem_barrier_all();
            if (me == 0) {
                for (int s = 0; s < 2; s++)
                    t[s][ph][r] = round_trip(arr, sizes[s]);
                long one = 1;
                shmem_putmem((long *)done, &one, sizeof one, 1);
                shmem_quiet();
            } else if (ph == 0) {
                while (!*done)
                    nanosleep(&(struct timespec){0, 1000000}, NULL);
            } else {
                volatile unsigned long spin = 0;
                while (!*done)
                    spin++;
            }
            shmem_barrier_all();
        }
    shmem_barrier_all();
    if (me == 0) {
        printf("migrate-peers: PE 0 moves its memory to the device and back, %d reps, medians, "
               "while PE 1 (which has put to it) sleeps (idle) or spins (busy)\n", reps);
        for (int s = 0; s < 2; s++) {
            double q = 2.0 * (double)sizes[s] / bench_median_of(t[s][0], reps) / 1e9;
            double sl = 2.0 * (double)sizes[s] / bench_median_of(t[s][1], reps) / 1e9;
            char tag[16];
            snprintf(tag, sizeof tag, "%zuM", sizes[s] >> 20);
            printf("  %6s  PE 1 idle %7.2f GB/s  busy %7.2f GB/s  busy/idle %.3f\n", tag, q, sl,
                   sl / q);
            printf("metric migrate_peers.%s.idle_gbs %g\n", tag, q);
            printf("metric migrate_peers.%s.busy_gbs %g\n", tag, sl);
        }
        fflush(stdout);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
