/*
 * Helper of test-shmem-fatal.sh: a job that must end, abnormally and
 * promptly, in the way argv[1] names. PE 0 waits in shmem_barrier_all
 * while another PE fails:
 *
 *   putmem-stack  PE 1 puts to a stack (non-symmetric) address with the
 *                 default error mode (fatal): the job ends, non-zero, with
 *                 "uvas: shmem_putmem: ..." on stderr.
 *   global-exit   PE 1 calls shmem_global_exit(3).
 *   kill          PE 1 raises SIGKILL.
 *   mismatch      PE 1 calls shmem_malloc with another size than the others:
 *                 the job ends with "symmetric calls disagree" naming both.
 *   env           the environment as given (the script sets a bad variable):
 *                 shmem_init must refuse it.
 *
 * Whatever gets past the point where the job should have ended prints a
 * line with "NOT-ENDED", which the script treats as a failure. Each PE
 * prints its pid as it starts: the script watches the processes where
 * mpirun is told not to end the job itself.
 */
#include <shmem.h>

#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/multi/pes.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s putmem-stack|global-exit|kill|mismatch|env\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    if (strcmp(mode, "env"))
        unsetenv("UVAS_SHMEM_ERRORS"); /* the default: errors are fatal */
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    tu_need_pes(2);
    long *sym = shmem_calloc(16, sizeof(long));
    printf("PE %d of %d: started (%s), pid %d\n", me, n, mode, (int)getpid());
    fflush(stdout);
    shmem_barrier_all();
    if (!strcmp(mode, "env")) {
        printf("NOT-ENDED: PE %d got past shmem_init\n", me);
        shmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "mismatch")) {
        long *x = shmem_malloc(me == 1 ? 8192 : 4096);
        printf("NOT-ENDED: PE %d got %p from a mismatched shmem_malloc\n", me, (void *)x);
        fflush(stdout);
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    if (me == 1) {
        usleep(300 * 1000); /* let the others settle in the barrier */
        if (!strcmp(mode, "putmem-stack")) {
            long stack_buf[4] = {0}, src[4] = {1, 2, 3, 4};
            shmem_putmem(stack_buf, src, sizeof src, 0);
            printf("NOT-ENDED: PE 1 returned from a bad shmem_putmem\n");
        } else if (!strcmp(mode, "global-exit")) {
            shmem_global_exit(3);
            printf("NOT-ENDED: PE 1 returned from shmem_global_exit\n");
        } else if (!strcmp(mode, "kill")) {
            raise(SIGKILL);
            printf("NOT-ENDED: PE 1 survived SIGKILL\n");
        } else {
            fprintf(stderr, "unknown mode %s\n", mode);
            shmem_global_exit(2);
        }
        fflush(stdout);
    }
    shmem_barrier_all();
    printf("NOT-ENDED: PE %d passed the barrier (%s)\n", me, mode);
    fflush(stdout);
    (void)sym;
    shmem_finalize();
    return 0;
}
