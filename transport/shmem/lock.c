/*
 * Distributed locks (shmem_set_lock and friends): a ticket lock in PE 0's
 * copy of the user's symmetric long, the high 32 bits the next ticket, the
 * low 32 the ticket being served. A PE takes a ticket with one fetch-add
 * and waits for its turn polling with atomic fetches, so the lock is
 * granted in the order it was asked for (no PE starves, as the
 * specification's fairness wants) and costs one remote AMO to take when
 * free. The polling backs off to the scheduler: jobs run more PEs than
 * cores.
 */
#include <sched.h>
#include <stdint.h>

#include "shmem.h"

#define TICKET (1L << 32)
#define SERVING(v) ((uint32_t)(unsigned long)(v))
#define NEXT(v) ((uint32_t)((unsigned long)(v) >> 32))

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
    uint32_t mine = NEXT(shmem_long_atomic_fetch_add(lock, TICKET, 0));
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
        if (NEXT(v) != SERVING(v))
            return 1; /* held, or others wait for it */
        long seen = shmem_long_atomic_compare_swap(lock, v, v + TICKET, 0);
        if (seen == v)
            return 0;
        v = seen;
    }
}
