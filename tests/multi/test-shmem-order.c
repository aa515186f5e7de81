/*
 * Ordering and point-to-point synchronisation: fence, quiet, wait_until
 * and test on symmetric flags.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdio.h>
#include <string.h>

#include "shmem-suite.h"

/* ---- ordering and point-to-point synchronisation ------------------------------------ */

static void check_ordering(void)
{
    enum { FN = 256 * 1024 };
    int *flag = shmem_calloc(8, sizeof(int));
    long *lflag = shmem_calloc(2, sizeof(long));
    unsigned char *fd = shmem_malloc(FN);
    long *table = shmem_calloc((size_t)npes, sizeof(long));
    OK(flag && lflag && fd && table, "allocations");
    static unsigned char src[FN];

    /* fence: the data is there before the flag that follows it. */
    fill_pat(src, FN, me, 8);
    shmem_putmem(fd, src, FN, right);
    shmem_fence();
    shmem_int_p(&flag[0], 1, right);
    shmem_int_wait_until(&flag[0], SHMEM_CMP_EQ, 1);
    expect_pat(fd, FN, left, 8, "data put before shmem_fence and a flag");
    shmem_barrier_all();

    /* quiet: non-blocking data completed before the flag. */
    fill_pat(src, FN, me, 9);
    shmem_putmem_nbi(fd, src, FN, right);
    shmem_quiet();
    shmem_int_atomic_set(&flag[1], 7, right);
    shmem_wait_until(&flag[1], SHMEM_CMP_GT, 5); /* generic */
    OK_EQ(flag[1], 7, "flag after generic wait_until GT");
    expect_pat(fd, FN, left, 9, "data put with _nbi before shmem_quiet and a flag");

    /* test: false before anyone sets the flag, true after. */
    OK_EQ(shmem_int_test(&flag[2], SHMEM_CMP_NE, 0), 0, "shmem_int_test before the put");
    OK_EQ(shmem_test(&flag[2], SHMEM_CMP_EQ, 0), 1, "generic shmem_test before the put");
    shmem_barrier_all();
    shmem_int_p(&flag[2], 3, right);
    unsigned long polls = 0;
    while (!shmem_test(&flag[2], SHMEM_CMP_GE, 3))
        polls++;
    OK_EQ(flag[2], 3, "flag after shmem_test succeeded");
    OK_EQ(shmem_int_test(&flag[2], SHMEM_CMP_LE, 3), 1, "shmem_int_test LE");
    OK_EQ(shmem_int_test(&flag[2], SHMEM_CMP_LT, 3), 0, "shmem_int_test LT");
    OK_EQ(shmem_int_test(&flag[2], SHMEM_CMP_GT, 3), 0, "shmem_int_test GT");

    /* wait_until LT / LE / NE / GE on long, typed and generic. */
    lflag[0] = 100;
    lflag[1] = -5;
    shmem_barrier_all();
    shmem_long_atomic_set(&lflag[0], 2, right);
    shmem_long_wait_until(&lflag[0], SHMEM_CMP_LT, 5);
    OK_EQ(lflag[0], 2, "shmem_long_wait_until LT");
    shmem_long_wait_until(&lflag[0], SHMEM_CMP_LE, 2);
    shmem_long_p(&lflag[1], 9, right);
    shmem_wait_until(&lflag[1], SHMEM_CMP_NE, -5L);
    OK_EQ(lflag[1], 9, "generic wait_until NE");
    shmem_long_wait_until(&lflag[1], SHMEM_CMP_GE, 9);
    OK_EQ(shmem_long_test(&lflag[1], SHMEM_CMP_EQ, 9), 1, "shmem_long_test EQ");

    /* barrier_all: every PE's put to every PE is complete after it. */
    shmem_barrier_all();
    for (int k = 0; k < npes; k++)
        shmem_long_p(&table[me], 1000L * me + k, k);
    shmem_barrier_all();
    for (int k = 0; k < npes; k++)
        OK_EQ(table[k], 1000L * k + me, "shmem_barrier_all completes puts");

    shmem_barrier_all(); /* everyone has checked before the table is rewritten */
    /* sync_all: after quiet, the other PEs' updates are visible. */
    for (int k = 0; k < npes; k++)
        shmem_long_p(&table[me], -1000L * me - k, k);
    shmem_quiet();
    shmem_sync_all();
    for (int k = 0; k < npes; k++)
        OK_EQ(table[k], -1000L * k - me, "shmem_quiet + shmem_sync_all");
    OK_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0, "shmem_team_sync(WORLD)");
    static long psync[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier(0, 0, npes, psync);

    shmem_free(table);
    shmem_free(fd);
    shmem_free(lflag);
    shmem_free(flag);
}

int main(void)
{
    int level = suite_start();
    check_ordering();
    suite_end("test-shmem-order", level);
    return 0;
}
