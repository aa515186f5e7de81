/*
 * A PE's helper child (fork, then exit(0)) is no PE: it ends at once and
 * on its own, and the job goes on. The child inherited the at-exit hook
 * that finalizes a PE which returns from main without shmem_finalize: it
 * ran shmem_finalize, joined the job's barrier in the parent's name and
 * died of SIGSEGV on the windows it does not inherit (over UCX it sent the
 * parent's barrier message and spun for ever; found by review). Each PE
 * forks a child that exits 0 while the other PEs wait in a barrier; the
 * child must exit 0, and a put around the ring after it lands.
 *
 * Run under mpirun with 2 or more PEs.
 */
#include <shmem.h>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"

static pid_t parent;

/* Registered before shmem_init, so it runs after the PE's own at-exit hook
 * (the one under test) and before the sanitizer's leak check, which in a
 * child reports what only the parent's other threads referenced. */
static void child_ends_here(void)
{
    if (getpid() != parent)
        _exit(0);
}

int main(void)
{
    parent = getpid();
    atexit(child_ends_here);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *x = shmem_malloc(sizeof *x);
    CHECK(x != NULL, "shmem_malloc");
    *x = 0;
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        if (me == pe) {
            fflush(stdout);
            fflush(stderr);
            pid_t c = fork();
            CHECK(c >= 0, "fork: %s", strerror(errno));
            if (c == 0) {
                alarm(20); /* a child that hangs ends the test, not the job */
                exit(0);
            }
            int st;
            CHECK(waitpid(c, &st, 0) == c, "waitpid");
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "PE %d's helper child %s %d", me,
                  WIFSIGNALED(st) ? "died of signal" : "exited", WIFSIGNALED(st) ? WTERMSIG(st)
                                                                             : WEXITSTATUS(st));
        }
        shmem_barrier_all();
    }
    shmem_long_p(x, 100 + me, (me + 1) % n);
    shmem_barrier_all();
    CHECK(*x == 100 + (me + n - 1) % n, "PE %d: after the children, x = %ld", me, *x);
    shmem_finalize();
    if (me == 0)
        printf("ok\n");
    return 0;
}
