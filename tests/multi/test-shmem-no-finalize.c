/*
 * A program that returns from main without shmem_finalize, as programs
 * written for OpenSHMEM 1.3 and earlier do, ends well: uvas finalizes it
 * at exit, so mpirun sees every PE exit 0 (not "exited improperly"). The
 * even PEs call shmem_finalize twice and then return (the second call and
 * the one at exit do nothing), the odd ones only return. Also: a thread
 * level below MULTIPLE is provided as asked.
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
    int provided = -1, q = -1;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_FUNNELED, &provided), 0, "shmem_init_thread");
    CHECK_EQ(provided, SHMEM_THREAD_FUNNELED, "the thread level asked for");
    shmem_query_thread(&q);
    CHECK_EQ(q, SHMEM_THREAD_FUNNELED, "shmem_query_thread");
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2)
        SKIP("needs 2 PEs or more");
    shmem_long_p(&x, me, (me + 1) % n);
    shmem_barrier_all();
    CHECK_EQ(x, (me + n - 1) % n, "the left PE's put");
    if (me == 0)
        printf("test-shmem-no-finalize: %d PEs; the odd ones return from main without "
               "shmem_finalize, the even ones call it twice\n", n);
    if (me % 2 == 0) {
        shmem_finalize();
        shmem_finalize();
    }
    return 0;
}
