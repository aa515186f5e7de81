/*
 * A program that returns from main without shmem_finalize, as programs
 * written for OpenSHMEM 1.3 and earlier do, ends well: uvas finalizes it
 * at exit, so mpirun sees every PE exit 0 (not "exited improperly").
 * After the return nothing is checked here: the test is that the job's
 * exit status is 0 and it ends (meson's timeout otherwise).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/check.h"

static long x = -1;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2)
        SKIP("needs 2 PEs or more");
    shmem_long_p(&x, me, (me + 1) % n);
    shmem_barrier_all();
    CHECK_EQ(x, (me + n - 1) % n, "the left PE's put");
    if (me == 0)
        printf("test-shmem-no-finalize: %d PEs, returning from main without shmem_finalize\n",
               n);
    return 0;
}
