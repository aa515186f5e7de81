/*
 * shmemx.h as programs written for Sandia OpenSHMEM use it: the names
 * under which it offered what OpenSHMEM 1.4/1.5 made standard (bitwise
 * atomics, put-with-signal without sig_op, teams, team collectives and
 * reductions, test_any and friends, their _vector forms) reach the
 * standard routines, and shmemx_wtime counts seconds forward;
 * shmemx_pcontrol is shmem_pcontrol. Included as SGI-era programs (and
 * the UH suite's oldest tests) do, from <mpp/shmem.h>.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <mpp/shmem.h>
#include <mpp/shmemx.h>

#include <time.h>

#include "shmem-suite.h"

static unsigned long bits;
static long data[8], red[4], src4[4];
static uint64_t sig;
static int flags[64];
static int want[64];

int main(void)
{
    int level = suite_start();

    double t0 = shmemx_wtime();
    struct timespec ms = {0, 2000000};
    nanosleep(&ms, NULL);
    double t1 = shmemx_wtime();
    OK(t1 - t0 >= 0.0015 && t1 - t0 < 10, "shmemx_wtime: %.6f s for a 2 ms sleep", t1 - t0);
    shmemx_clear_error();
    shmemx_pcontrol(1, "region");
    OK(shmemx_last_error() == 0, "shmemx_pcontrol: %s", shmemx_last_error_string());

    /* bitwise atomics under their shmemx_ names */
    shmem_barrier_all();
    shmemx_ulong_atomic_or(&bits, 1ul << me, 0);
    shmem_barrier_all();
    if (me == 0)
        OK_EQ(bits, (npes >= 64 ? ~0ul : (1ul << npes) - 1), "shmemx_ulong_atomic_or from all");
    shmem_barrier_all();
    OK_EQ(shmemx_ulong_atomic_fetch_xor(&bits, 0, 0) & 1, 1, "shmemx_ulong_atomic_fetch_xor");
    shmem_barrier_all();

    /* put-with-signal as before sig_op existed: the signal is set */
    long src[8];
    for (int i = 0; i < 8; i++)
        src[i] = me * 10 + i;
    shmemx_long_put_signal(data, src, 8, &sig, (uint64_t)me + 100, right);
    shmem_uint64_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)left + 100);
    for (int i = 0; i < 8; i++)
        OK_EQ(data[i], left * 10 + i, "data put with the signal");
    shmem_barrier_all();

    /* teams and a team reduction under the draft names */
    shmemx_team_t all;
    OK_EQ(shmemx_team_split_strided(SHMEMX_TEAM_WORLD, 0, 1, npes, NULL, 0, &all), 0,
          "shmemx_team_split_strided");
    OK_EQ(shmemx_team_n_pes(all), npes, "shmemx_team_n_pes");
    OK_EQ(shmemx_team_my_pe(all), me, "shmemx_team_my_pe");
    for (int i = 0; i < 4; i++)
        src4[i] = me + i;
    OK_EQ(shmemx_team_sync(all), 0, "shmemx_team_sync");
    OK_EQ(shmemx_long_sum_reduce(all, red, src4, 4), 0, "shmemx_long_sum_reduce");
    for (int i = 0; i < 4; i++)
        OK_EQ(red[i], (long)npes * (npes - 1) / 2 + (long)npes * i, "the sum");
    shmemx_team_destroy(all);

    /* test_any under its shmemx_ names, typed and generic */
    shmem_int_p(&flags[me], 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        size_t idx = shmemx_int_test_any(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, 1);
        OK(idx < (size_t)npes, "shmemx_int_test_any found a flag: %zu", idx);
        OK_EQ(shmemx_test_all(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, 1), 1,
              "shmemx_test_all");
        /* the _vector forms: each flag against its own value; PE 0's
         * wants 2, so it is the one that does not satisfy */
        size_t n = (size_t)npes, ix[64];
        for (int i = 0; i < npes; i++)
            want[i] = i == 0 ? 2 : 1;
        OK_EQ(shmemx_int_test_all_vector(flags, n, NULL, SHMEM_CMP_EQ, want), 0,
              "shmemx_int_test_all_vector: PE 0's flag is not 2");
        OK_EQ(shmemx_int_test_some_vector(flags, n, ix, NULL, SHMEM_CMP_EQ, want), n - 1,
              "shmemx_int_test_some_vector: all but PE 0's");
        size_t any = shmemx_int_wait_until_any_vector(flags, n, NULL, SHMEM_CMP_EQ, want);
        OK(any >= 1 && any < n, "shmemx_int_wait_until_any_vector: %zu", any);
        OK(shmemx_int_test_any_vector(flags, n, NULL, SHMEM_CMP_EQ, want) != 0,
           "shmemx_int_test_any_vector skips PE 0's");
        OK_EQ(shmemx_int_wait_until_some_vector(flags, n, ix, NULL, SHMEM_CMP_NE, want), 1,
              "shmemx_int_wait_until_some_vector: only PE 0's differs");
        OK_EQ(ix[0], 0, "and it is PE 0's");
        want[0] = 1;
        shmemx_int_wait_until_all_vector(flags, n, NULL, SHMEM_CMP_EQ, want);
        OK_EQ(shmemx_test_all_vector(flags, n, NULL, SHMEM_CMP_EQ, want), 1,
              "shmemx_test_all_vector (generic) once every flag is wanted as 1");
    }
    suite_end("shmem-shmemx", level);
    return 0;
}
