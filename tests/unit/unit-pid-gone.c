/* A local peer is dead once its process is a zombie, not only once it is
 * reaped: a PE killed under mpirun's orte_enable_recovery stays a zombie a
 * while, and kill(pid, 0) still succeeds on it (a migration waited for a
 * dead PE's pin for ever). */
#include <sys/wait.h>
#include <time.h>

#include "../check.h"
#include "transport/pe/job.h"
#include "transport/pe/liveness.h"

int main(void)
{
    CHECK(!uvas_pe_pid_gone(getpid()), "this process is taken for dead");
    pid_t c = fork();
    CHECK(c >= 0, "fork");
    if (c == 0)
        _exit(0);
    /* Not reaped: a zombie once it has exited. */
    bool gone = false;
    for (int i = 0; i < 5000 && !gone; i++) {
        gone = uvas_pe_pid_gone(c);
        if (!gone)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    CHECK(gone, "an exited, unreaped child (a zombie) is taken for alive");
    CHECK(waitpid(c, NULL, 0) == c, "waitpid");
    CHECK(uvas_pe_pid_gone(c), "a reaped child is taken for alive");
    printf("ok\n");
    return 0;
}
