/*
 * The helper of test-launcher-death.sh: every PE says it waits, with its
 * pid, and waits for a flag nobody sets (a program stuck in its own wait,
 * as a suite's test that loops for ever is). The script then kills mpirun
 * with SIGKILL: PEs left behind by their launcher must end by themselves,
 * not wait (and spin) for ever.
 */
#include <shmem.h>
#include <stdio.h>
#include <unistd.h>

static long flag;

int main(void)
{
    shmem_init();
    shmem_barrier_all();
    printf("PE %d of %d: waiting, pid %d\n", shmem_my_pe(), shmem_n_pes(), (int)getpid());
    fflush(stdout);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    printf("PE %d: the wait ended\n", shmem_my_pe());
    shmem_finalize();
    return 1;
}
