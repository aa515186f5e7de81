/*
 * Outcomes the specification defines as a nonzero return are not errors
 * of the program: in the default (fatal) error mode they return, and
 * shmemx_last_error says why.
 *  - quiet, fence and destroy of SHMEM_CTX_INVALID do nothing;
 *  - a split of SHMEM_TEAM_INVALID (a PE left out of an earlier split
 *    passes on what it got), strided and 2D: no team, nonzero;
 *  - shmem_team_get_config and shmem_team_create_ctx on
 *    SHMEM_TEAM_INVALID, shmem_ctx_get_team on SHMEM_CTX_INVALID;
 *  - no resources left: splits until the team slots run out (every PE
 *    gets the same nonzero at the same split), contexts until they run
 *    out; after destroying them, both can be made again;
 *  - no memory left (OpenSHMEM 1.5, 9.3): shmem_malloc, shmem_align and
 *    shmem_calloc of more than the heap holds (or whose size overflows)
 *    return NULL on every PE, and shmem_realloc returns NULL and keeps
 *    the object as it was.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdlib.h>
#include <string.h>

#include "shmem-suite.h"

#define MAX_TEAMS 128
#define MAX_CTX 2048

static void check_invalid_handles(void)
{
    shmem_team_t t = (shmem_team_t)1234, x = t, y = t;
    OK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0,
       "split of SHMEM_TEAM_INVALID returns nonzero");
    OK(t == SHMEM_TEAM_INVALID, "and makes no team");
    OK(strstr(shmemx_last_error_string(), "SHMEM_TEAM_INVALID"), "said: %s",
       shmemx_last_error_string());
    OK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &x, NULL, 0, &y) != 0,
       "2D split of SHMEM_TEAM_INVALID");
    OK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "no teams from it");
    shmem_team_config_t cfg;
    OK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0,
       "get_config of SHMEM_TEAM_INVALID");
    shmem_ctx_t c = (shmem_ctx_t)1234;
    OK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0 && c == SHMEM_CTX_INVALID,
       "a context of SHMEM_TEAM_INVALID");
    t = (shmem_team_t)1234;
    OK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID,
       "the team of SHMEM_CTX_INVALID");
    /* quiet, fence and destroy of a context that could not be made do
     * nothing (the specification's examples pass such contexts on) */
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    OK(1, "quiet, fence, destroy of SHMEM_CTX_INVALID returned");
    /* A PE outside a team goes through a 2D split of its (invalid) team
     * beside the members, as programs do. */
    shmem_team_t even;
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even),
          0, "the even PEs");
    int r = shmem_team_split_2d(even, 1, NULL, 0, &x, NULL, 0, &y);
    if (me % 2)
        OK(r != 0 && x == SHMEM_TEAM_INVALID, "an odd PE splits nothing");
    else
        OK(r == 0 && x != SHMEM_TEAM_INVALID && y != SHMEM_TEAM_INVALID, "even PEs split");
    shmem_team_destroy(x);
    shmem_team_destroy(y);
    shmem_team_destroy(even);
    shmem_barrier_all();
}

static void check_team_exhaustion(void)
{
    static shmem_team_t teams[MAX_TEAMS];
    int n = 0, r = 0;
    while (n < MAX_TEAMS &&
           (r = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &teams[n])) == 0)
        n++;
    OK(r != 0 && n > 0 && n < MAX_TEAMS, "splits until the slots run out: %d made", n);
    OK(strstr(shmemx_last_error_string(), "slots"), "said: %s", shmemx_last_error_string());
    /* The same count everywhere: the PEs agreed on each split. */
    static int counts[64];
    shmem_int_p(&counts[me % 64], n, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 0; pe < npes && pe < 64; pe++)
            OK_EQ(counts[pe], n, "teams made at each PE");
    for (int i = 0; i < n; i++)
        shmem_team_destroy(teams[i]);
    shmem_team_t again;
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &again), 0,
          "a split after the destroys");
    OK_EQ(shmem_team_sync(again), 0, "and its sync");
    shmem_team_destroy(again);
    shmem_barrier_all();
}

static void check_ctx_exhaustion(void)
{
    static shmem_ctx_t ctx[MAX_CTX];
    int n = 0, r = 0;
    while (n < MAX_CTX && (r = shmem_ctx_create(0, &ctx[n])) == 0)
        n++;
    OK(r != 0 && n > 0 && n < MAX_CTX, "contexts until they run out: %d made", n);
    OK(ctx[n] == SHMEM_CTX_INVALID, "the one refused is SHMEM_CTX_INVALID");
    for (int i = 0; i < n; i++)
        shmem_ctx_destroy(ctx[i]);
    shmem_ctx_t c;
    OK_EQ(shmem_ctx_create(0, &c), 0, "a context after the destroys");
    static long landed;
    shmem_ctx_long_p(c, &landed, 1, right);
    shmem_ctx_quiet(c);
    shmem_ctx_destroy(c);
    shmem_barrier_all();
    OK_EQ(landed, 1, "a put in the new context landed");
}

static void check_out_of_memory(void)
{
    const size_t huge = (size_t)1 << 62;
    shmemx_clear_error();
    OK(shmem_malloc(huge) == NULL, "shmem_malloc(2^62) returns NULL");
    OK(shmemx_last_error() != 0, "and says why: %s", shmemx_last_error_string());
    OK(shmem_align(4096, huge) == NULL, "shmem_align(4096, 2^62) returns NULL");
    OK(shmem_calloc(SIZE_MAX, 2) == NULL, "shmem_calloc(SIZE_MAX, 2) returns NULL");
    OK(shmem_calloc(huge, 1) == NULL, "shmem_calloc(2^62, 1) returns NULL");
    long *x = shmem_malloc(4 * sizeof(long));
    OK(x != NULL, "a small object after them");
    if (!x)
        return;
    for (int i = 0; i < 4; i++)
        x[i] = 100 + i;
    shmemx_clear_error();
    OK(shmem_realloc(x, huge) == NULL, "shmem_realloc to 2^62 returns NULL");
    OK(x[0] == 100 && x[3] == 103, "and keeps the object as it was");
    shmem_barrier_all();
    shmem_long_p(x, 7, (shmem_my_pe() + 1) % shmem_n_pes());
    shmem_barrier_all();
    OK(x[0] == 7, "the object still symmetric: a put into it landed (%ld)", x[0]);
    shmem_free(x);
}

int main(void)
{
    unsetenv("UVAS_SHMEM_ERRORS"); /* the default: fatal */
    int level = suite_start();
    check_invalid_handles();
    check_team_exhaustion();
    check_ctx_exhaustion();
    check_out_of_memory();
    suite_end("shmem-defined-returns", level);
    return 0;
}
