/*
 * uvas's extensions with teams and contexts, and the team numbering of
 * contexts made on a team. The team is the world's PEs from 1 on (so team
 * PE i is world PE i + 1: a mix-up of the two numberings shows):
 *  - memory from the device and host heaps (shmem_malloc_with_hints,
 *    collective over the job) is reached by a team context's puts and
 *    atomics with team-relative PE numbers, and by team collectives
 *    (broadcast and a sum reduction into device-heap memory);
 *  - shmemx_team_residence and shmemx_ctx_residence answer for team PE i
 *    what shmemx_residence answers for world PE i + 1, and each heap's
 *    blocks are where the heap says;
 *  - bad input: a PE outside the team in a context's put and in the
 *    residence queries (refused, nothing written), an invalid team;
 *  - shmem_team_destroy destroys the team's shareable contexts.
 * Device-heap memory is written and read only through the library (puts,
 * gets, collectives): a CPU access could move its blocks (the policy's
 * choice), and the residence checks would then not say what they test.
 * Runs on any number of PEs >= 2 (skips on 1); PE 0 is outside the team.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem-suite.h"

#define N 1024

int main(void)
{
    setenv("UVAS_SHMEM_ERRORS", "return", 1);
    int level = suite_start();
    long *dev = shmem_malloc_with_hints(N * sizeof(long), SHMEM_MALLOC_DEVICE_HEAP);
    long *host = shmem_malloc_with_hints(N * sizeof(long), SHMEM_MALLOC_HOST_HEAP);
    long *counter = shmem_malloc_with_hints(sizeof(long), SHMEM_MALLOC_HOST_HEAP);
    OK(dev && host && counter, "hinted allocations");
    for (int i = 0; i < N; i++)
        host[i] = -1;
    *counter = 0;
    int dev_res = dev_present ? SHMEMX_RES_DEVICE : SHMEMX_RES_HOST;
    for (int pe = 0; pe < npes; pe++)
        OK_EQ(shmemx_residence(dev, pe), dev_res, "the device heap's block, from allocation");
    shmem_barrier_all();
    static long got[N];

    shmem_team_t tail;
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &tail), 0,
          "the team of PEs 1..n-1");
    if (me == 0) {
        OK(tail == SHMEM_TEAM_INVALID, "PE 0 is outside the team");
        OK_EQ(shmemx_team_residence(tail, dev, 0), -1, "residence through no team");
    } else {
        int tme = shmem_team_my_pe(tail), tn = shmem_team_n_pes(tail);
        OK_EQ(tme, me - 1, "team numbering");
        int tright = (tme + 1) % tn, tleft = (tme + tn - 1) % tn;
        shmem_ctx_t ctx;
        OK_EQ(shmem_team_create_ctx(tail, 0, &ctx), 0, "a context on the team");

        /* Puts and atomics in the team's numbering, into both heaps. */
        long src[N];
        for (int i = 0; i < N; i++)
            src[i] = me * 100000 + i;
        shmem_ctx_long_put(ctx, dev, src, N, tright);
        shmem_ctx_long_put_nbi(ctx, host, src, N, tright);
        shmem_ctx_long_atomic_add(ctx, counter, me, 0);
        shmem_ctx_quiet(ctx);
        OK_EQ(shmem_team_sync(tail), 0, "team sync");
        int from = tleft + 1; /* the left team neighbour, in world numbers */
        int bad = 0;
        shmem_long_get(got, dev, N, me);
        for (int i = 0; i < N; i++)
            bad += got[i] != from * 100000 + i || host[i] != from * 100000 + i;
        OK_EQ(bad, 0, "elements put by the team's left neighbour into both heaps");
        if (tme == 0) {
            long want = 0;
            for (int pe = 1; pe < npes; pe++)
                want += pe;
            OK_EQ(*counter, want, "team atomics landed on team PE 0 = world PE 1");
        } else {
            OK_EQ(*counter, 0, "no atomic landed on another team PE");
        }

        /* The residence queries, numbered as the team and the context. */
        for (int i = 0; i < tn; i++) {
            OK_EQ(shmemx_team_residence(tail, dev, i), shmemx_residence(dev, i + 1),
                  "team PE i is world PE i + 1 (device heap)");
            OK_EQ(shmemx_team_residence(tail, dev, i), dev_res, "the device heap's block");
            OK_EQ(shmemx_ctx_residence(ctx, host, i), SHMEMX_RES_HOST, "the host heap's block");
        }
        OK_EQ(shmemx_ctx_residence(SHMEM_CTX_DEFAULT, host, 0), SHMEMX_RES_HOST,
              "the default context numbers as the world");

        /* Team collectives into the device heap. */
        OK_EQ(shmem_team_sync(tail), 0, "sync before the collectives");
        for (int i = 0; i < N; i++)
            host[i] = me + i;
        OK_EQ(shmem_long_broadcast(tail, dev, host, N, tn - 1), 0, "broadcast from the last");
        bad = 0;
        shmem_long_get(got, dev, N, me);
        for (int i = 0; i < N; i++)
            bad += got[i] != npes - 1 + i;
        OK_EQ(bad, 0, "broadcast into device-heap memory");
        OK_EQ(shmem_long_sum_reduce(tail, dev, host, N), 0, "sum reduction");
        bad = 0;
        shmem_long_get(got, dev, N, me);
        for (int i = 0; i < N; i++) {
            long want = 0;
            for (int pe = 1; pe < npes; pe++)
                want += pe + i;
            bad += got[i] != want;
        }
        OK_EQ(bad, 0, "sum reduced into device-heap memory");

        /* A PE outside the team: refused, named, nothing written. */
        OK_EQ(shmem_team_sync(tail), 0, "sync before bad input");
        long before = shmem_long_g(dev, me);
        shmemx_clear_error();
        shmem_ctx_long_p(ctx, dev, 42, tn);
        OK(strstr(shmemx_last_error_string(), "not in the context's team"),
           "a put to PE n of the team refused: %s", shmemx_last_error_string());
        shmem_ctx_long_p(ctx, dev, 42, -1);
        OK(shmemx_last_error() != 0, "a put to PE -1 refused");
        OK_EQ(shmemx_team_residence(tail, dev, tn), -1, "residence at PE n of the team");
        OK(strstr(shmemx_last_error_string(), "not in the team"), "named: %s",
           shmemx_last_error_string());
        OK_EQ(shmemx_team_residence(SHMEM_TEAM_INVALID, dev, 0), -1, "an invalid team");
        OK_EQ(shmem_team_sync(tail), 0, "sync after bad input");
        OK_EQ(shmem_long_g(dev, me), before, "nothing written by the refused puts");
        OK_EQ(shmemx_team_residence(tail, dev, tme), dev_res, "still where the heap says");

        /* Destroying the team destroys its shareable contexts. */
        shmem_ctx_destroy(ctx);
        shmem_ctx_t shared_ctx;
        OK_EQ(shmem_team_create_ctx(tail, 0, &shared_ctx), 0, "a second context");
        shmem_team_destroy(tail);
        shmemx_clear_error();
        shmem_ctx_quiet(shared_ctx);
        OK(strstr(shmemx_last_error_string(), "not a live context"),
           "the team's context went with it: %s", shmemx_last_error_string());
    }
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(host);
    shmem_free(dev);
    suite_end("shmem-team-heaps", level);
    return 0;
}
