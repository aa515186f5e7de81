/*
 * Addressing: shmem_ptr and the accessibility queries.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdio.h>
#include <string.h>

#include "shmem-suite.h"

/* ---- addressing -------------------------------------------------------------------- */

static void check_addressing(void)
{
    const char *tr = getenv("UVAS_TRANSPORT");
    int ucx_only = tr && strcmp(tr, "ucx") == 0;
    long *h = shmem_malloc_with_hints(4096, SHMEM_MALLOC_HOST_HEAP);
    long *cold = shmem_malloc_with_hints((size_t)2 << 20, SHMEM_MALLOC_HOST_HEAP);
    OK(h && cold, "allocations");
    long stack_var = 5;

    OK_EQ(shmem_addr_accessible(h, right), 1, "shmem_addr_accessible(symmetric, right)");
    OK_EQ(shmem_addr_accessible(h + 100, me), 1, "shmem_addr_accessible(symmetric, me)");
    OK_EQ(shmem_addr_accessible(&stack_var, right), 0, "shmem_addr_accessible(stack)");
    OK_EQ(shmem_addr_accessible(&stack_var, me), 0, "shmem_addr_accessible(stack, me)");
    OK_EQ(shmem_addr_accessible(h, npes), 0, "shmem_addr_accessible(PE n_pes)");
    OK((long *)shmem_ptr(h, me) == h, "shmem_ptr(x, my_pe) is x");

    /* The owner touches it; the neighbour stores through shmem_ptr. */
    for (int i = 0; i < 512; i++)
        h[i] = -1;
    h[0] = me;
    shmem_barrier_all();
    long *rp = shmem_ptr(h, right);
    long *rc = shmem_ptr(cold, right);
    if (!ucx_only) {
        OK(rp != NULL, "shmem_ptr to a local peer's host-heap object is NULL");
        OK(rc != NULL, "shmem_ptr to a local peer's untouched host-heap object is NULL");
    }
    if (rp) {
        OK_EQ(rp[0], right, "a load through shmem_ptr reads the peer's value");
        rp[1] = 5000 + me;
    }
    if (rc)
        rc[1000] = 7000 + me; /* never touched by its owner before */
    shmem_barrier_all();
    if (rp)
        OK_EQ(h[1], 5000 + left, "a store through the left neighbour's shmem_ptr");
    if (rc)
        OK_EQ(cold[1000], 7000 + left, "a store through shmem_ptr into an untouched object");
    if (rp) {
        OK_EQ(shmem_team_ptr(SHMEM_TEAM_WORLD, h, right) == (void *)rp, 1,
              "shmem_team_ptr(WORLD) equals shmem_ptr");
    }
    shmem_barrier_all();
    shmem_free(cold);
    shmem_free(h);
}

int main(void)
{
    int level = suite_start();
    check_addressing();
    suite_end("test-shmem-addr", level);
    return 0;
}
