/*
 * Whether the job's PEs are alive: a PE that died (killed, crashed) must
 * end the job with a message, not leave the others waiting for ever on
 * its pins or its messages. Under mpirun the launcher ends the job too;
 * these checks bound the wait when it does not (orte_enable_recovery).
 */
#include "transport/pe/liveness.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "transport/pe/boot.h"
#include "transport/pe/job.h"
#include "uvas/status.h"

/* Has the process of a local peer ended? A killed PE stays a zombie until
 * its launcher reaps it (with orte_enable_recovery, for a while), and
 * kill(pid, 0) still succeeds on a zombie: its state says it is dead
 * (a migration waited for a dead PE's pin for ever under ASan so). */
bool uvas_pe_pid_gone(pid_t pid)
{
    if (kill(pid, 0) < 0)
        return errno == ESRCH;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *c = strrchr(buf, ')'); /* the command may hold spaces and ')' */
    return c && c[1] == ' ' && (c[2] == 'Z' || c[2] == 'X');
}

/* A transition has waited seconds for the pins of table t (rank t, or the
 * remote peers' table n): is that peer alive? */
void uvas_pe_gate_stuck(size_t block, unsigned t, double secs)
{
    if ((int)t < uvas_job.n && (int)t != uvas_job.me) {
        struct uvas_peer *p = &uvas_job.peers[t];
        if (p->same_node && uvas_pe_pid_gone(p->pid)) {
            fprintf(stderr, "uvas: PE %d: PE %u (pid %d) died holding block %zu for %.0f s; "
                    "ending the job\n", uvas_job.me, t, (int)p->pid, block, secs);
            uvas_pe_global_exit(1);
        }
        uvas_warn("block %zu: PE %u's access has held its migration for %.0f s", block, t,
                  secs);
        return;
    }
    uvas_pe_check_alive();
    uvas_warn("block %zu: %s access has held its migration for %.0f s", block,
              (int)t == uvas_job.me ? "one of this PE's own" : "a remote PE's", secs);
}

/* Is some local peer gone? (Under mpirun the launcher ends the job too;
 * this bounds the wait when it does not.) */
void uvas_pe_check_alive(void)
{
    if (!atomic_load(&uvas_job.peers_known))
        return; /* during init or teardown: no pids to watch */
    for (int r = 0; r < uvas_job.n; r++) {
        struct uvas_peer *p = &uvas_job.peers[r];
        if (p->same_node && uvas_pe_pid_gone(p->pid)) {
            fprintf(stderr, "uvas: PE %d: PE %d (pid %d) is gone; ending the job\n",
                    uvas_job.me, r, (int)p->pid);
            uvas_pe_global_exit(1);
        }
    }
}

_Noreturn void uvas_pe_global_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    uvas_boot_abort(status, "uvas: global exit");
    _exit(status);
}
