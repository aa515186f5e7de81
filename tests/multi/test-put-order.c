/*
 * Puts from one PE to another land in the order they were issued, even
 * when they take different paths (uvas's guarantee, stronger than
 * OpenSHMEM's, which asks for shmem_fence in between).
 *
 * The case that broke it: a put into an untouched block goes to the owner
 * as an active message; the owner's fault path fills the block and opens
 * its gate before it stores the put's data; a second put issued right then
 * goes straight through the window (or the device mapping) and lands
 * first; the owner's store then overwrites it with the older data. Found
 * by the soak test (~1 put in 10^6).
 *
 * Every writer PE takes untouched blocks of PE 0 one after another: put A
 * (an active message: the block is untouched), wait until PE 0's gate for
 * the block opens (read from the gate table we map; over UCX there is no
 * table, so no wait), put B at once, quiet, get: B must be there. Sizes
 * alternate between the small path (64 B) and the walker (16 KiB). Prints
 * how the second puts went (directly or by message).
 *
 * Run under mpirun with 2 or more PEs.
 */
#include <shmem.h>

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tests/check.h"
#include "transport/pe/job.h"
#include "transport/pe/pe.h"
#include "uvas/gate.h"
#include "uvas/internal.h"

#define ROUNDS 600 /* blocks per writer */
#define BIG 16384 /* over UCX with UVAS_UCX_RMA_MIN=16K: the ucp RMA path */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t am_ops(void)
{
    struct uvas_path_ctr *c = uvas_path_mine ? uvas_path_mine : uvas_path_register();
    return atomic_load_explicit(&c->p[UVAS_PATH_AM].ops, memory_order_relaxed);
}

int main(void)
{
    setenv("UVAS_BLOCK_SIZE", "64K", 0);
    tu_deadline(110);
    CHECK(shmem_init_thread(SHMEM_THREAD_SINGLE, &(int){0}) == 0, "shmem_init");
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        printf("SKIP: needs 2 or more PEs (run under mpirun -np 2)\n");
        shmem_finalize();
        return TU_EXIT_SKIP;
    }
    size_t blk = tu_range().block_size;
    int writers = npes - 1;
    size_t nblocks = (size_t)ROUNDS * (size_t)writers;
    /* Untouched until the puts: nothing below touches it at PE 0. */
    unsigned char *arr = shmem_align(blk, nblocks * blk);
    CHECK(arr != NULL, "shmem_align of %zu blocks", nblocks);
    shmem_barrier_all();

    unsigned long lost = 0, direct = 0, by_message = 0, gate_seen = 0;
    if (me > 0) {
        struct uvas_peer *p = &uvas_job.peers[0];
        unsigned char a[BIG], b[BIG], got[BIG];
        for (int r = 0; r < ROUNDS; r++) {
            size_t n = r & 1 ? BIG : 64;
            unsigned char *t = arr + ((size_t)r * (size_t)writers + (size_t)(me - 1)) * blk +
                               (size_t)(r % 7) * 512;
            memset(a, 0xa0 | (r & 15), n);
            memset(b, 0xb0 | (r & 15), n);
            shmem_putmem(t, a, n, 0); /* untouched: an active message */
            if (p->local && p->gates) {
                const _Atomic uint64_t *g = &p->gates[uvas_block_index(t)];
                double t0 = now();
                while (now() - t0 < 0.5) {
                    uint64_t w = atomic_load_explicit(g, memory_order_acquire);
                    if (uvas_gate_is_open(w) && uvas_gate_res(w) != UVAS_RES_UNPOPULATED) {
                        gate_seen++;
                        break;
                    }
                }
            }
            uint64_t before = am_ops();
            shmem_putmem(t, b, n, 0);
            if (am_ops() != before)
                by_message++;
            else
                direct++;
            shmem_quiet();
            shmem_getmem(got, t, n, 0);
            if (memcmp(got, b, n)) {
                if (lost++ < 5)
                    fprintf(stderr, "PE %d round %d (%zu bytes): the second put was overwritten "
                            "by the first (read 0x%02x, wanted 0x%02x)\n", me, r, n, got[0],
                            b[0]);
            }
        }
        printf("PE %d: %d rounds: gate open before the second put in %lu; second put direct "
               "%lu, by message %lu; lost %lu\n", me, ROUNDS, gate_seen, direct, by_message,
               lost);
    }
    shmem_barrier_all();
    shmem_free(arr);
    shmem_finalize();
    return lost ? TU_EXIT_FAIL : TU_EXIT_PASS;
}
