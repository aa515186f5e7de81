/*
 * A reply that answers no request in flight writes nowhere. Before, an
 * active-message reply named its request by the address of the waiting
 * struct, and whatever a reply carried was stored there: a stray or
 * made-up reply wrote into the receiver's memory at an address of the
 * sender's choosing. PE 1 sends PE 0 replies no request of PE 0 asked for:
 * two whose cookies are addresses in PE 0's array (as the old cookie was
 * an address), one naming a slot nobody waits on, one of an old
 * generation, one past the table. PE 0's array stays as it was, and PE 0
 * goes on working: a get and an atomic afterwards (where they go by
 * message, their replies still find their requests). A put's
 * acknowledgement that answers no put of PE 0's is dropped too: it took
 * PE 0's count of puts in flight below zero, and PE 0's next quiet (and
 * every barrier) waited for ever (found by review).
 *
 * Run under mpirun with 2 PEs; skips where the PEs have no UCX endpoints.
 */
#include <shmem.h>

#include <stdio.h>
#include <time.h>

#include "tests/check.h"
#include "tests/multi/pes.h"
#include "transport/pe/am.h"
#include "transport/pe/job.h"

static long canary[16];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    tu_need_pes(2);
    /* Every PE must have an endpoint to the other: count them. */
    static int have_ep, with_ep;
    have_ep = uvas_job.peers[me == 0 ? 1 : 0].ep != NULL;
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &with_ep, &have_ep, 1);
    if (with_ep != n) {
        if (me == 0)
            printf("SKIP: the PEs have no UCX endpoints to each other here\n");
        shmem_finalize();
        return 77;
    }
    for (int i = 0; i < 16; i++)
        canary[i] = 0x1234 + i;
    /* PE 0's own address of the array (its layout is not PE 1's). */
    static uint64_t at0;
    if (me == 0)
        at0 = (uint64_t)(uintptr_t)canary;
    shmem_barrier_all();
    if (me == 1) {
        uint64_t a = 0;
        shmem_getmem(&a, &at0, sizeof a, 0);
        CHECK(a != 0, "PE 0's address of the array");
        uvas_am_send_reply(0, a + 4 * sizeof(long), 0xdeadbeef);
        uvas_am_send_reply(0, a, 0xdeadbeef);
        uvas_am_send_reply(0, 1, 0xdeadbeef);                  /* slot 0, nobody waits */
        uvas_am_send_reply(0, ((uint64_t)7 << 32) | 5, 0xdeadbeef); /* an old generation */
        uvas_am_send_reply(0, 0xffffffffull, 0xdeadbeef);       /* past the table */
        uvas_am_send_reply(0, 0, 0); /* cookie 0: a put's acknowledgement, for no put */
    }
    /* PE 0 serves messages while it waits here; then long enough for the
     * replies to have landed (they travel ahead of the barrier's). */
    shmem_barrier_all();
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    shmem_barrier_all();
    if (me == 0) {
        for (int i = 0; i < 16; i++)
            CHECK(canary[i] == 0x1234 + i, "canary[%d] = %#lx after made-up replies", i,
                  (unsigned long)canary[i]);
        CHECK(atomic_load(&uvas_job.am_pending) == 0,
              "puts in flight after a made-up acknowledgement: %llu",
              (unsigned long long)atomic_load(&uvas_job.am_pending));
        shmem_quiet(); /* returns: nothing is in flight */
    }
    /* Requests by message still find their answers. */
    static long remote[4];
    long v = 0;
    if (me == 0)
        remote[1] = 77;
    shmem_barrier_all();
    if (me == 1) {
        shmem_getmem(&v, &remote[1], sizeof v, 0);
        CHECK(v == 77, "a get after the made-up replies read %ld", v);
        long old = shmem_long_atomic_fetch_add(&remote[2], 5, 0);
        CHECK(old == 0, "an atomic after the made-up replies fetched %ld", old);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(remote[2] == 5, "remote[2] = %ld after the atomic", remote[2]);
    shmem_finalize();
    if (me == 0)
        printf("ok\n");
    return 0;
}
