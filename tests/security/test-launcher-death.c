/*
 * The helper of test-launcher-death.sh: every PE says it waits, with its
 * pid, and waits for a flag nobody sets (a program stuck in its own wait,
 * as a suite's test that loops for ever is). The script then kills mpirun
 * with SIGKILL: PEs left behind by their launcher must end by themselves,
 * not wait (and spin) for ever. With LAUNCHER_DEATH_ERR set, each PE's
 * standard error goes to that path with its rank appended, where the
 * script reads why the PE ended (its stderr through mpirun dies with it).
 */
#include <fcntl.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long flag;

int main(void)
{
    shmem_init();
    const char *err = getenv("LAUNCHER_DEATH_ERR");
    if (err) {
        char path[4096];
        snprintf(path, sizeof path, "%s%d", err, shmem_my_pe());
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || dup2(fd, 2) < 0) {
            perror(path);
            shmem_global_exit(1);
        }
        close(fd);
    }
    shmem_barrier_all();
    printf("PE %d of %d: waiting, pid %d\n", shmem_my_pe(), shmem_n_pes(), (int)getpid());
    fflush(stdout);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    printf("PE %d: the wait ended\n", shmem_my_pe());
    shmem_finalize();
    return 1;
}
