/*
 * Communication contexts: shmem_ctx_create and shmem_team_create_ctx,
 * every kind of operation in a context (typed, sized and byte puts and
 * gets, _nbi, p/g, strided, put-with-signal, atomics), also through the C11
 * generic names with a context first, next to the forms without one;
 * shmem_ctx_quiet completes the context's puts before a flag set after it
 * (through the default context), so the peer that sees the flag sees the
 * data; shmem_ctx_get_team; destroy (its puts complete). Bad input: an
 * invalid or destroyed context, unknown options, a NULL out pointer.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem-suite.h"

#define N 4096

static long data[N], flag, counter, tmp[N];
static int ivals[16];
static uint64_t sig;

int main(void)
{
    setenv("UVAS_SHMEM_ERRORS", "return", 1);
    int level = suite_start();
    shmem_ctx_t ctx;
    OK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0, "shmem_ctx_create");
    OK(ctx != SHMEM_CTX_INVALID && ctx != SHMEM_CTX_DEFAULT, "a context of its own");
    shmem_team_t team;
    OK_EQ(shmem_ctx_get_team(ctx, &team), 0, "get_team");
    OK(team == SHMEM_TEAM_WORLD, "a context of shmem_ctx_create is the world's");

    for (int round = 0; round < 3; round++) {
        long src[N];
        for (int i = 0; i < N; i++)
            src[i] = me * 1000000 + round * 10000 + i;
        /* typed, then non-blocking, in the context; the flag after the
         * context's quiet, through the default context */
        shmem_ctx_long_put(ctx, data, src, N / 2, right);
        shmem_ctx_long_put_nbi(ctx, data + N / 2, src + N / 2, N / 2, right);
        shmem_ctx_quiet(ctx);
        shmem_long_atomic_set(&flag, round + 1, right);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, round + 1);
        for (int i = 0; i < N; i++)
            OK_EQ(data[i], left * 1000000 + round * 10000 + i, "data put in a context");
        shmem_barrier_all();
    }
    /* byte, sized and strided forms; gets */
    long one = 77 + me;
    shmem_ctx_putmem(ctx, &tmp[0], &one, sizeof one, right);
    shmem_ctx_put64(ctx, &tmp[1], &one, 1, right);
    long two[2] = {5, 6};
    shmem_ctx_long_iput(ctx, &tmp[2], two, 2, 1, 2, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    OK(tmp[0] == 77 + left && tmp[1] == 77 + left && tmp[2] == 5 && tmp[4] == 6,
       "putmem, put64 and iput in a context: %ld %ld %ld %ld", tmp[0], tmp[1], tmp[2], tmp[4]);
    long back;
    shmem_ctx_getmem(ctx, &back, &tmp[0], sizeof back, right);
    OK_EQ(back, 77 + me, "getmem in a context");
    OK_EQ(shmem_ctx_long_g(ctx, &tmp[1], left), 77 + (left + npes - 1) % npes, "g in a context");

    /* the generic names, with and without a context */
    shmem_barrier_all();
    counter = 0;
    shmem_barrier_all();
    shmem_atomic_add(ctx, &counter, 2L, 0);
    shmem_atomic_add(&counter, 1L, 0);
    OK(shmem_atomic_fetch_add(ctx, &counter, 0L, 0) >= 2, "generic fetch_add in a context");
    shmem_p(ctx, &ivals[me % 16], me, 0);
    shmem_put(ctx, &ivals[15], &me, 1, (me + 1) % npes == 0 ? me : right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (me == 0) {
        OK_EQ(counter, 3L * npes, "atomic adds with and without a context");
        for (int p = 0; p < npes && p < 15; p++)
            OK_EQ(ivals[p], p, "generic p with a context");
    }
    OK_EQ(shmem_g(ctx, &counter, 0), 3L * npes, "generic g with a context");
    OK_EQ(shmem_g(&counter, 0), 3L * npes, "generic g without one");
    shmem_barrier_all();
    /* put with signal in a context */
    sig = 0;
    shmem_barrier_all();
    shmem_ctx_long_put_signal(ctx, &data[0], &one, 1, &sig, 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
    OK_EQ(data[0], 77 + left, "put with signal in a context");
    shmem_barrier_all();

    /* a context on a team */
    shmem_team_t even;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    if (even != SHMEM_TEAM_INVALID) {
        shmem_ctx_t tctx;
        OK_EQ(shmem_team_create_ctx(even, 0, &tctx), 0, "shmem_team_create_ctx");
        OK_EQ(shmem_ctx_get_team(tctx, &team), 0, "get_team of a team's context");
        OK(team == even, "the team's context names the team");
        shmem_ctx_destroy(tctx);
        shmem_team_destroy(even);
    }
    shmem_barrier_all();

    /* bad input */
    shmem_ctx_t bad = (shmem_ctx_t)1234;
    OK(shmem_ctx_create(1L << 20, &bad) != 0 && bad == SHMEM_CTX_INVALID &&
           strstr(shmemx_last_error_string(), "unknown options"),
       "unknown options: %s", shmemx_last_error_string());
    OK(shmem_ctx_create(0, NULL) != 0, "a NULL out pointer");
    shmemx_clear_error();
    shmem_ctx_long_p(SHMEM_CTX_INVALID, &flag, 1, right);
    OK(strstr(shmemx_last_error_string(), "SHMEM_CTX_INVALID") != NULL,
       "an operation in SHMEM_CTX_INVALID: %s", shmemx_last_error_string());
    shmem_ctx_destroy(ctx);
    shmemx_clear_error();
    shmem_ctx_quiet(ctx);
    OK(strstr(shmemx_last_error_string(), "not a live context") != NULL,
       "a destroyed context: %s", shmemx_last_error_string());
    /* A destroyed context's handle stays dead when a new context takes
     * its memory (handles were the contexts' addresses: the next context
     * made came back at the same address, and the stale handle named it). */
    {
        shmem_ctx_t old, fresh;
        OK_EQ(shmem_ctx_create(0, &old), 0, "a context to destroy");
        shmem_ctx_destroy(old);
        OK_EQ(shmem_ctx_create(0, &fresh), 0, "a context made after it");
        shmemx_clear_error();
        shmem_ctx_quiet(old);
        OK(strstr(shmemx_last_error_string(), "not a live context") != NULL,
           "the destroyed context's handle named the context made after it");
        shmemx_clear_error();
        shmem_ctx_destroy(fresh);
        OK(shmemx_last_error() == 0, "the new context: %s", shmemx_last_error_string());
    }
    /* 2000 contexts made and destroyed: their domains come back */
    for (int i = 0; i < 2000; i++) {
        shmem_ctx_t c;
        OK_EQ(shmem_ctx_create(0, &c), 0, "create again");
        shmem_ctx_long_p(c, &tmp[0], i, right);
        shmem_ctx_destroy(c);
    }
    suite_end("test-shmem-ctx", level);
    return 0;
}
