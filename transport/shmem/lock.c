/*
 * Distributed locks (shmem_set_lock and friends): a ticket lock in PE 0's
 * copy of the user's symmetric long, the high 32 bits the next ticket, the
 * low 32 the ticket being served. A PE takes a ticket with one fetch-add
 * and waits for its turn polling with atomic fetches, so the lock is
 * granted in the order it was asked for (no PE starves, as the
 * specification's fairness wants) and costs one remote AMO to take when
 * free. The polling backs off to the scheduler: jobs run more PEs than
 * cores.
 *
 * The tickets taken and not yet served (next - serving) are never
 * negative; a word that says otherwise was written outside these
 * routines (a program that stores into its lock while holding it, or a
 * lock not zero before its first use), and its waiters would wait for
 * ever: each routine that meets one says so instead, and changes nothing
 * (set_lock has taken a ticket by then: it returns without the lock).
 */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "shmem.h"
#include "transport/shmem/error.h"
#include "uvas.h"

#define TICKET (1L << 32)
#define SERVING(v) ((uint32_t)(unsigned long)(v))
#define NEXT(v) ((uint32_t)((unsigned long)(v) >> 32))

static bool written_over(const char *call, const long *lock, long v)
{
    if ((uint32_t)(NEXT(v) - SERVING(v)) <= INT32_MAX)
        return false;
    uvas_shmem_fail(call, UVAS_ERR_INVAL,
                    "the lock at %p serves ticket %u of %u taken: it was written outside the "
                    "lock routines (set it to 0 before its first use, then change it only "
                    "with shmem_set_lock, shmem_test_lock and shmem_clear_lock)",
                    (const void *)lock, SERVING(v), NEXT(v));
    return true;
}

static void pause_a_little(unsigned *spins)
{
    if (++*spins < 16) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    } else {
        sched_yield();
    }
}

void shmem_set_lock(long *lock)
{
    long v = shmem_long_atomic_fetch_add(lock, TICKET, 0);
    if (written_over("shmem_set_lock", lock, v))
        return;
    uint32_t mine = NEXT(v);
    unsigned spins = 0;
    while (SERVING(shmem_long_atomic_fetch(lock, 0)) != mine)
        pause_a_little(&spins);
}

/* The next ticket's turn: the low half goes up by one without carrying
 * into the tickets (a compare-and-swap, not an add). */
void shmem_clear_lock(long *lock)
{
    shmem_quiet(); /* the critical section's puts and AMOs land first */
    long v = shmem_long_atomic_fetch(lock, 0);
    for (;;) {
        if (written_over("shmem_clear_lock", lock, v))
            return;
        if (NEXT(v) == SERVING(v)) {
            uvas_shmem_fail("shmem_clear_lock", UVAS_ERR_INVAL,
                            "the lock at %p is one nobody holds: clear only a lock this PE "
                            "set (shmem_set_lock, or shmem_test_lock returning 0)",
                            (const void *)lock);
            return;
        }
        long next = (long)(((unsigned long)v & ~0xffffffffUL) | (uint32_t)(SERVING(v) + 1));
        long seen = shmem_long_atomic_compare_swap(lock, v, next, 0);
        if (seen == v)
            return;
        v = seen; /* a ticket was taken meanwhile */
    }
}

int shmem_test_lock(long *lock)
{
    long v = shmem_long_atomic_fetch(lock, 0);
    for (;;) {
        if (written_over("shmem_test_lock", lock, v))
            return 1;
        if (NEXT(v) != SERVING(v))
            return 1; /* held, or others wait for it */
        long seen = shmem_long_atomic_compare_swap(lock, v, v + TICKET, 0);
        if (seen == v)
            return 0;
        v = seen;
    }
}
