/*
 * Teams beyond the world: shmem_team_split_strided (the even PEs; every
 * PE alone; a team of a team) and shmem_team_split_2d (rows and columns):
 * numbering (my_pe, n_pes, translate_pe both ways, -1 for non-members),
 * SHMEM_TEAM_INVALID for PEs left out, team sync and barrier, every
 * collective on a team (broadcast, collect, fcollect, alltoall, reductions)
 * with results only from members, shmem_sync(team) through the generic,
 * the configuration, destroy, and splits again after destroys (the sync
 * slots are reused: 100 teams made and destroyed). Bad input: a range
 * past the parent, stride 0, a NULL handle pointer, an unknown handle.
 * A negative stride: the world backwards (numbering, fcollect order, a
 * team context's PE numbers).
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem-suite.h"

static long src[64], dst[256];
static int isrc[8], idst[8];

static void check_even(void)
{
    shmem_team_config_t cfg = {.num_contexts = 2};
    shmem_team_t even;
    int half = (npes + 1) / 2;
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, half, &cfg,
                                   SHMEM_TEAM_NUM_CONTEXTS, &even), 0, "split the even PEs");
    if (me % 2) {
        OK(even == SHMEM_TEAM_INVALID, "an odd PE got a team");
        OK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, even), -1, "odd PE in even");
    } else {
        OK_EQ(shmem_team_my_pe(even), me / 2, "my number in the even team");
        OK_EQ(shmem_team_n_pes(even), half, "the even team's size");
        OK_EQ(shmem_team_translate_pe(even, 1 % half, SHMEM_TEAM_WORLD), 2 * (1 % half),
              "even -> world");
        OK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, even), me / 2, "world -> even");
        shmem_team_config_t got = {0};
        OK_EQ(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &got), 0, "get_config");
        OK_EQ(got.num_contexts, 2, "num_contexts as configured");
        /* collectives on the team: members only */
        for (int i = 0; i < 64; i++)
            src[i] = me * 1000 + i;
        OK_EQ(shmem_long_broadcast(even, dst, src, 64, half - 1), 0, "broadcast on a team");
        for (int i = 0; i < 64; i++)
            OK_EQ(dst[i], 2 * (half - 1) * 1000 + i, "broadcast from the last even PE");
        OK_EQ(shmem_long_fcollect(even, dst, src, 4), 0, "fcollect");
        for (int k = 0; k < half; k++)
            for (int i = 0; i < 4; i++)
                OK_EQ(dst[k * 4 + i], 2 * k * 1000 + i, "fcollect from team PE k");
        OK_EQ(shmem_long_collect(even, dst, src, (size_t)(me / 2 + 1)), 0, "collect");
        for (int k = 0, at = 0; k < half; at += k + 1, k++)
            for (int i = 0; i <= k; i++)
                OK_EQ(dst[at + i], 2 * k * 1000 + i, "collect from team PE k");
        for (int i = 0; i < half; i++)
            src[i] = me * 100 + i;
        OK_EQ(shmem_long_alltoall(even, dst, src, 1), 0, "alltoall");
        for (int k = 0; k < half; k++)
            OK_EQ(dst[k], 2 * k * 100 + me / 2, "alltoall from team PE k");
        isrc[0] = me + 1;
        OK_EQ(shmem_int_sum_reduce(even, idst, isrc, 1), 0, "sum_reduce");
        OK_EQ(idst[0], half * half, "the sum of 2k + 1 over the team"); /* sum of odd numbers */
        OK_EQ(shmem_int_max_reduce(even, idst, isrc, 1), 0, "max_reduce");
        OK_EQ(idst[0], 2 * (half - 1) + 1, "the max over the team");
        for (int r = 0; r < 20; r++)
            OK_EQ(shmem_sync(even), 0, "shmem_sync(team), the generic");
        OK_EQ(shmem_team_sync(even), 0, "shmem_team_sync");
        /* a team of the team: its PE 0 alone */
        shmem_team_t first;
        OK_EQ(shmem_team_split_strided(even, 0, 1, 1, NULL, 0, &first), 0, "split a team");
        OK((me == 0) == (first != SHMEM_TEAM_INVALID), "only PE 0 in the sub-team");
        if (first != SHMEM_TEAM_INVALID) {
            OK_EQ(shmem_team_n_pes(first), 1, "a team of one");
            OK_EQ(shmem_team_sync(first), 0, "sync alone");
            shmem_team_destroy(first);
        }
        shmem_team_destroy(even);
    }
    shmem_barrier_all();
}

static void check_2d(void)
{
    int xr = npes >= 4 ? 2 : 1;
    shmem_team_t row, col;
    OK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &row, NULL, 0, &col), 0,
          "split_2d");
    OK(row != SHMEM_TEAM_INVALID && col != SHMEM_TEAM_INVALID, "every PE has a row and column");
    OK_EQ(shmem_team_my_pe(row), me % xr, "my place in my row");
    OK_EQ(shmem_team_my_pe(col), me / xr, "my place in my column");
    int rows = (npes + xr - 1) / xr;
    OK_EQ(shmem_team_n_pes(col), (npes - me % xr + xr - 1) / xr, "my column's size");
    OK(shmem_team_n_pes(col) <= rows, "column within the rows");
    isrc[0] = me;
    OK_EQ(shmem_int_sum_reduce(col, idst, isrc, 1), 0, "sum over my column");
    int want = 0;
    for (int p = me % xr; p < npes; p += xr)
        want += p;
    OK_EQ(idst[0], want, "the column's sum");
    OK_EQ(shmem_int_sum_reduce(row, idst, isrc, 1), 0, "sum over my row");
    want = 0;
    for (int p = me / xr * xr; p < npes && p < me / xr * xr + xr; p++)
        want += p;
    OK_EQ(idst[0], want, "the row's sum");
    shmem_team_destroy(row);
    shmem_team_destroy(col);
    shmem_barrier_all();
}

/* The world backwards (stride -1): numbering, translation, a collective
 * in the team's order, and a context's puts numbered as the team. */
static void check_reversed(void)
{
    shmem_team_t rev;
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev), 0,
          "the world backwards");
    OK_EQ(shmem_team_my_pe(rev), npes - 1 - me, "my number, backwards");
    OK_EQ(shmem_team_translate_pe(rev, 0, SHMEM_TEAM_WORLD), npes - 1, "team PE 0 = last");
    OK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, rev), npes - 1, "world 0 = team last");
    for (int i = 0; i < 4; i++)
        src[i] = me * 10 + i;
    OK_EQ(shmem_long_fcollect(rev, dst, src, 4), 0, "fcollect backwards");
    for (int j = 0; j < npes; j++)
        for (int i = 0; i < 4; i++)
            OK_EQ(dst[j * 4 + i], (npes - 1 - j) * 10 + i, "blocks in the team's order");
    shmem_ctx_t ctx;
    OK_EQ(shmem_team_create_ctx(rev, 0, &ctx), 0, "a context on it");
    isrc[0] = me;
    shmem_ctx_int_put(ctx, &idst[0], &isrc[0], 1, 0); /* team PE 0: the last world PE */
    shmem_ctx_quiet(ctx);
    OK_EQ(shmem_team_sync(rev), 0, "sync backwards");
    if (me == npes - 1)
        OK(idst[0] >= 0 && idst[0] < npes, "a put to team PE 0 landed on the last PE");
    shmem_ctx_destroy(ctx);
    shmem_team_destroy(rev);
    shmem_barrier_all();
}

static void check_reuse_and_errors(void)
{
    /* 100 teams, each made and destroyed: slots come back. */
    for (int r = 0; r < 100; r++) {
        shmem_team_t t;
        OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, r % npes, 1, 1, NULL, 0, &t), 0,
              "a split of one");
        OK((t != SHMEM_TEAM_INVALID) == (me == r % npes), "the one member");
        if (t != SHMEM_TEAM_INVALID)
            shmem_team_destroy(t);
    }
    /* A destroyed team's handle stays dead when a new team takes its
     * memory (handles were the teams' addresses). */
    shmem_team_t gone, fresh;
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &gone), 0, "a team");
    shmem_team_destroy(gone);
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &fresh), 0,
          "a team made after it");
    OK(shmem_team_n_pes(gone) == -1,
       "the destroyed team's handle named the team made after it (n_pes %d)",
       shmem_team_n_pes(gone));
    shmem_team_destroy(fresh);
    shmem_team_t all;
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &all), 0, "all");
    for (int r = 0; r < 50; r++)
        OK_EQ(shmem_team_sync(all), 0, "sync a team of everyone");
    shmem_team_destroy(all);

    shmem_team_t t = (shmem_team_t)1234;
    OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &t) != 0,
       "a split past the parent's PEs");
    OK(t == SHMEM_TEAM_INVALID && strstr(shmemx_last_error_string(), "do not name PEs"),
       "refused, naming it: %s", shmemx_last_error_string());
    OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &t) != 0, "stride 0");
    t = (shmem_team_t)1234;
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes, 1, 0, NULL, 0, &t), 0,
          "an empty team (programs shrink a team down to nothing)");
    OK(t == SHMEM_TEAM_INVALID, "no PE is in an empty team");
    OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, NULL) != 0, "NULL out");
    OK_EQ(shmem_team_my_pe((shmem_team_t)&t), -1, "my_pe of an unknown handle");
    OK(shmem_team_sync((shmem_team_t)&t) != 0 && strstr(shmemx_last_error_string(), "not a team"),
       "sync of an unknown handle: %s", shmemx_last_error_string());
    shmem_barrier_all();
}

/* SHMEM_TEAM_SHARED is the PEs that would mutually return a non-null
 * shmem_ptr for all symmetric heap objects (OpenSHMEM 1.5, library
 * handles): every member's copy of a plain shmem_malloc object must be
 * reachable so. uvas hands out no pointer into memory that may migrate
 * (the unified and device heaps), so the team was the whole node with
 * every such pointer NULL. */
static void check_shared(void)
{
    long *x = shmem_malloc(sizeof *x);
    CHECK(x != NULL, "shmem_malloc");
    int n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(n >= 1 && shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0, "the shared team: %d PEs", n);
    for (int i = 0; i < n; i++)
        CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, x, i) != NULL,
              "PE %d of SHMEM_TEAM_SHARED (world PE %d) gives no pointer to a shmem_malloc "
              "object", i, shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD));
    shmem_barrier_all();
    shmem_free(x);
}

int main(void)
{
    setenv("UVAS_SHMEM_ERRORS", "return", 1);
    int level = suite_start();
    check_even();
    check_2d();
    check_reversed();
    check_reuse_and_errors();
    check_shared();
    suite_end("test-shmem-team", level);
    return 0;
}
