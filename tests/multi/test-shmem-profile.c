/*
 * The profiling interface (OpenSHMEM 1.5, 9.17), as a tool uses it: this
 * program defines shmem_putmem, shmem_long_atomic_fetch_add,
 * shmem_barrier_all and shmem_malloc itself, counts the calls and passes
 * them on through the pshmem_ names. Checks that
 *  - every call the program makes reaches the wrapper, and the work is
 *    done (data and atomics arrive on the peers);
 *  - the library's own calls do not (shmem_malloc's barrier, the
 *    collectives' puts are not the program's), so counts are exact;
 *  - a pshmem_ call goes straight to the library, and pshmem_sync picks
 *    the team or the active-set form by its arguments, as shmem_sync does.
 * Linked against libuvas.so, as tools are. Runs on any number of PEs >= 2.
 */
#include <pshmem.h>

#include <string.h>

#include "shmem-suite.h"

static long n_put, n_fadd, n_barrier, n_malloc;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    n_put++;
    pshmem_putmem(dest, source, nelems, pe);
}

long shmem_long_atomic_fetch_add(long *dest, long value, int pe)
{
    n_fadd++;
    return pshmem_long_atomic_fetch_add(dest, value, pe);
}

void shmem_barrier_all(void)
{
    n_barrier++;
    pshmem_barrier_all();
}

void *shmem_malloc(size_t size)
{
    n_malloc++;
    return pshmem_malloc(size);
}

int main(void)
{
    int level = suite_start();
    long barriers0 = n_barrier;

    char *buf = shmem_malloc(64);
    long *ctr = shmem_malloc(sizeof(long));
    OK(buf && ctr, "allocations");
    OK_EQ(n_malloc, 2, "shmem_malloc calls seen by the wrapper");
    OK_EQ(n_barrier, barriers0, "the library's own barriers are not the program's calls");
    *ctr = 0;
    memset(buf, 0, 64);
    shmem_barrier_all();

    char msg[64];
    fill_pat((unsigned char *)msg, sizeof msg, me, 1);
    shmem_putmem(buf, msg, sizeof msg, right);
    for (int i = 0; i < 10; i++)
        shmem_long_atomic_fetch_add(ctr, 1, (me + i) % npes);
    shmem_quiet();
    shmem_barrier_all();
    OK_EQ(n_put, 1, "shmem_putmem calls seen");
    OK_EQ(n_fadd, 10, "fetch_add calls seen");
    OK_EQ(n_barrier, barriers0 + 2, "barrier calls seen");
    expect_pat((unsigned char *)buf, 64, left, 1, "data put through the wrapper");

    /* Every PE added 10, spread round-robin over the PEs from itself. */
    long want = 0;
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < 10; i++)
            want += (pe + i) % npes == me;
    OK_EQ(*ctr, want, "fetch_adds arrived");
    pshmem_barrier_all(); /* everyone has read buf before it is put again */

    /* Straight to the library: not counted, still done. */
    fill_pat((unsigned char *)msg, sizeof msg, me, 2);
    pshmem_putmem(buf, msg, sizeof msg, right);
    pshmem_quiet();
    OK_EQ(pshmem_sync(SHMEM_TEAM_WORLD), 0, "pshmem_sync(team)");
    OK_EQ(n_put, 1, "pshmem_putmem bypasses the wrapper");
    expect_pat((unsigned char *)buf, 64, left, 2, "data put through pshmem_putmem");

    static long psync[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    pshmem_barrier_all();
    pshmem_sync(0, 0, npes, psync);
    OK_EQ(n_barrier, barriers0 + 2, "pshmem_barrier_all bypasses the wrapper");

    shmem_free(ctr);
    shmem_free(buf);
    suite_end("shmem-profile", level);
    return 0;
}
