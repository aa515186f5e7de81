/*
 * Distributed locks and what programs written for other implementations
 * expect of point-to-point synchronisation:
 *  - shmem_set_lock / shmem_clear_lock exclude: every PE adds to a counter
 *    on PE 0 with a get, an add and a put (not atomic) under the lock, many
 *    times; no update is lost. shmem_test_lock takes a free lock (0) and
 *    refuses a held one (1), and the holder's puts land before the next
 *    holder enters (clear_lock's quiet);
 *  - the generic wait_until/test take short and unsigned short, and the
 *    deprecated shmem_long_wait works;
 *  - shmem_test_any is fair: with every entry satisfied, repeated calls
 *    return every index, not always the lowest;
 *  - shmemx.h and shmem_pcontrol exist, as programs include and call them.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <shmemx.h>

#include <stdio.h>

#include "shmem-suite.h"

#define ROUNDS 200

static void check_locks(void)
{
    long *lock = shmem_calloc(2, sizeof(long));
    long *counter = shmem_calloc(1, sizeof(long));
    int *inside = shmem_calloc(1, sizeof(int));
    OK(lock && counter && inside, "allocations");
    for (int r = 0; r < ROUNDS; r++) {
        shmem_set_lock(&lock[0]);
        /* Nobody else is inside: the flag on PE 0 is ours to raise. */
        OK_EQ(shmem_int_atomic_fetch_inc(inside, 0), 0, "PEs inside the lock at once");
        long v = shmem_long_g(counter, 0);
        shmem_long_p(counter, v + 1, 0);
        shmem_int_atomic_add(inside, -1, 0);
        shmem_clear_lock(&lock[0]);
    }
    shmem_barrier_all();
    OK_EQ(shmem_long_g(counter, 0), (long)ROUNDS * npes, "updates made under the lock");

    /* test_lock: PE 0 takes the free lock; the others find it held. */
    if (me == 0)
        OK_EQ(shmem_test_lock(&lock[1]), 0, "shmem_test_lock on a free lock");
    shmem_barrier_all();
    if (me != 0)
        OK_EQ(shmem_test_lock(&lock[1]), 1, "shmem_test_lock on a held lock");
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(&lock[1]);
    shmem_barrier_all();
    /* Each PE in turn takes it with test_lock (spinning), and lets go. */
    while (shmem_test_lock(&lock[1]))
        ;
    long v = shmem_long_g(counter, 0);
    shmem_long_p(counter, v + 1, 0);
    shmem_clear_lock(&lock[1]);
    shmem_barrier_all();
    OK_EQ(shmem_long_g(counter, 0), (long)ROUNDS * npes + npes, "updates under test_lock");
    shmem_barrier_all();
    shmem_free(inside);
    shmem_free(counter);
    shmem_free(lock);
}

static void check_p2p(void)
{
    short *s = shmem_calloc(4, sizeof(short));
    unsigned short *us = shmem_calloc(4, sizeof(unsigned short));
    long *l = shmem_calloc(1, sizeof(long));
    OK(s && us && l, "allocations");
    shmem_barrier_all();
    shmem_short_p(&s[0], (short)(me + 1), right);
    shmem_ushort_p(&us[0], (unsigned short)(60000 + me), right);
    shmem_long_p(l, 5, right);
    shmem_wait_until(&s[0], SHMEM_CMP_EQ, (short)(left + 1));           /* generic, short */
    shmem_wait_until(&us[0], SHMEM_CMP_GE, (unsigned short)60000);     /* unsigned short */
    shmem_long_wait(l, 0);                                              /* deprecated */
    OK_EQ(us[0], 60000 + left, "unsigned short after wait_until");
    OK(shmem_test(&s[0], SHMEM_CMP_EQ, (short)(left + 1)), "generic test on a short");
    OK_EQ(*l, 5, "long after shmem_long_wait");

    /* Fairness: all four entries satisfy; four calls return each. */
    for (int i = 0; i < 4; i++)
        s[i] = 1;
    unsigned seen = 0;
    for (int k = 0; k < 4; k++) {
        size_t i = shmem_test_any(s, 4, NULL, SHMEM_CMP_EQ, (short)1);
        OK(i < 4, "shmem_test_any returned %zu", i);
        seen |= 1u << i;
    }
    OK_EQ(seen, 0xfu, "indices shmem_test_any returned over 4 calls (a bit each)");
    seen = 0;
    for (int k = 0; k < 4; k++)
        seen |= 1u << shmem_wait_until_any(s, 4, NULL, SHMEM_CMP_EQ, (short)1);
    OK_EQ(seen, 0xfu, "indices shmem_wait_until_any returned over 4 calls");
    shmem_pcontrol(1);
    shmem_barrier_all();
    shmem_free(l);
    shmem_free(us);
    shmem_free(s);
}

int main(void)
{
    int level = suite_start();
    check_locks();
    check_p2p();
    suite_end("test-shmem-lock", level);
    return 0;
}
