/*
 * Small reductions, broadcasts and fcollects, which copy each contribution into the
 * team's staged buffers and sync once (transport/shmem/stage.c): a source
 * changed the moment the call returns does not reach a slower member;
 * calls back to back with members at different speeds (the buffers are
 * reused every other call) give every member the right bits; sizes at and
 * past the largest staged one; teams made again on a slot with other
 * members; a member whose part failed makes the others fail, not read what
 * an earlier call left. Runs on any number of PEs >= 2 (skips on 1).
 */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shmem-suite.h"

#define ROUNDS 300
#define NMAX 600 /* doubles: past the largest staged contribution (960 bytes) */

static double dval(int p, int round, size_t i)
{
    return ((size_t)p + i + (size_t)round) % 3 == 2 ? 1e16 : 1.0 + (double)((i + (size_t)round) % 5);
}

/* The member-order sum of members first, first + stride, ... (n of them). */
static double dsum(int first, int stride, int n, int round, size_t i)
{
    double s = 0;
    for (int k = 0; k < n; k++)
        s = k ? s + dval(first + k * stride, round, i) : dval(first, round, i);
    return s;
}

/* Members at different speeds: some calls find the others already gone. */
static void jitter(int round)
{
    if ((round + me) % 7 == 0)
        usleep(50);
}

static void reductions_back_to_back(double *src, double *dst, size_t cnt, shmem_team_t team,
                                    int first, int stride, int n, const char *what)
{
    size_t bad = 0;
    int bad_round = -1;
    for (int r = 0; r < ROUNDS; r++) {
        for (size_t i = 0; i < cnt; i++)
            src[i] = dval(me, r, i);
        jitter(r);
        OK_EQ(shmem_double_sum_reduce(team, dst, src, cnt), 0, what);
        /* Free again at once: the others read what the call copied. */
        for (size_t i = 0; i < cnt; i++)
            src[i] = -7.0;
        for (size_t i = 0; i < cnt; i++)
            if (memcmp(&dst[i], &(double){dsum(first, stride, n, r, i)}, sizeof(double)) && !bad++)
                bad_round = r;
    }
    OK(bad == 0, "%s, %zu doubles, %d calls back to back: %zu elements wrong, the first in "
       "call %d", what, cnt, ROUNDS, bad, bad_round);
}

int main(void)
{
    int level = suite_start();
    double *src = shmem_malloc(NMAX * sizeof(double));
    double *dst = shmem_malloc(NMAX * sizeof(double));
    long *bsrc = shmem_malloc(NMAX * sizeof(long));
    long *bdst = shmem_malloc(NMAX * sizeof(long));
    double *devdst = shmem_malloc_with_hints(NMAX * sizeof(double), SHMEM_MALLOC_DEVICE_HEAP);
    OK(src && dst && bsrc && bdst && devdst, "allocations");

    /* At the largest staged size (120 doubles), past it, and small. */
    static const size_t cnts[] = {1, 7, 120, 121, 513};
    for (size_t c = 0; c < sizeof cnts / sizeof *cnts; c++)
        reductions_back_to_back(src, dst, cnts[c], SHMEM_TEAM_WORLD, 0, 1, npes,
                                "a world sum");

    /* In place, small, and into the device heap (read back with gets). */
    for (int r = 0; r < 20; r++) {
        for (size_t i = 0; i < 5; i++)
            src[i] = dval(me, r, i);
        OK_EQ(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, src, src, 5), 0, "in place");
        for (size_t i = 0; i < 5; i++)
            OK(src[i] == dsum(0, 1, npes, r, i), "in-place sum, call %d, element %zu", r, i);
        for (size_t i = 0; i < 5; i++)
            src[i] = dval(me, r, i);
        OK_EQ(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, devdst, src, 5), 0, "into the device heap");
        double got[5];
        shmem_getmem(got, devdst, sizeof got, me);
        for (size_t i = 0; i < 5; i++)
            OK(got[i] == dsum(0, 1, npes, r, i), "device-heap sum, call %d, element %zu", r, i);
    }
    if (dev_present)
        OK_EQ(shmemx_residence(devdst, me), SHMEMX_RES_DEVICE, "the dest stayed on the device");

    /* Broadcasts back to back from every root in turn, the root's source
     * changed at once. */
    size_t bbad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int root = r % npes;
        for (int i = 0; i < 16; i++)
            bsrc[i] = 1000L * r + 10L * me + i;
        jitter(r);
        OK_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, 16, root), 0, "broadcast");
        for (int i = 0; i < 16; i++)
            bsrc[i] = -1;
        for (int i = 0; i < 16; i++)
            bbad += bdst[i] != 1000L * r + 10L * root + i;
    }
    OK(bbad == 0, "%d broadcasts back to back: %zu elements wrong", ROUNDS, bbad);

    /* fcollects back to back, each member's source changed at once. */
    size_t fbad = 0;
    long *fdst = shmem_malloc((size_t)npes * 8 * sizeof(long));
    OK(fdst != NULL, "shmem_malloc");
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < 8; i++)
            bsrc[i] = 1000L * r + 10L * me + i;
        jitter(r);
        OK_EQ(shmem_long_fcollect(SHMEM_TEAM_WORLD, fdst, bsrc, 8), 0, "fcollect");
        for (int i = 0; i < 8; i++)
            bsrc[i] = -1;
        for (int p = 0; p < npes; p++)
            for (int i = 0; i < 8; i++)
                fbad += fdst[p * 8 + i] != 1000L * r + 10L * p + i;
    }
    OK(fbad == 0, "%d fcollects back to back: %zu elements wrong", ROUNDS, fbad);
    shmem_free(fdst);

    /* A team made, used and destroyed, then another on the same slot with
     * more members (the first team's calls must not leave the members'
     * counts of calls apart), then the world's copy as a team. */
    if (npes >= 3) {
        for (int k = 0; k < 2; k++) {
            shmem_team_t pair, all;
            OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 2, NULL, 0, &pair), 0,
                  "PEs 0 and 1");
            if (me < 2) {
                reductions_back_to_back(src, dst, 3, pair, 0, 1, 2, "the pair's sum");
                shmem_team_destroy(pair);
            }
            OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &all), 0,
                  "every PE");
            reductions_back_to_back(src, dst, 3, all, 0, 1, npes, "the team of all PEs");
            shmem_team_destroy(all);
        }
    }

    /* A classic active set: the world's (staged) and PEs 1..n-1 (not). */
    static long psync[2][SHMEM_REDUCE_SYNC_SIZE];
    static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++)
        psync[0][k] = psync[1][k] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int r = 0; r < 50; r++) {
        src[0] = dval(me, r, 0);
        shmem_double_sum_to_all(dst, src, 1, 0, 0, npes, pwrk, psync[r % 2]);
        OK(dst[0] == dsum(0, 1, npes, r, 0), "world to_all, call %d", r);
        if (me >= 1) {
            shmem_double_sum_to_all(dst, src, 1, 1, 0, npes - 1, pwrk, psync[r % 2]);
            OK(dst[0] == dsum(1, 1, npes - 1, r, 0), "to_all on PEs 1..n-1, call %d", r);
        }
        shmem_barrier_all();
    }

    shmem_free(devdst);
    shmem_free(bdst);
    shmem_free(bsrc);
    shmem_free(dst);
    shmem_free(src);
    suite_end("test-shmem-stage", level);
    return 0;
}
