/*
 * Preloaded into OSHMEM's PEs by scripts/conformance/run.py only: Debian
 * 12's Open MPI 4.1.4 segfaults in or after shmem_finalize once a
 * program's work is done (open-mpi/ompi#11604, fixed in 4.1.6), which
 * would count every OSHMEM run as a crash. A SIGSEGV after shmem_finalize
 * was entered is reported on stderr and ends the process with the status
 * the program would have had (0); one before it stays a crash.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t finalizing;

static void on_segv(int sig)
{
    static const char msg[] = "oshmem-finalize-guard: SIGSEGV after shmem_finalize "
                              "(open-mpi/ompi#11604)\n";
    if (!finalizing) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    (void)!write(2, msg, sizeof msg - 1);
    _exit(0);
}

void shmem_finalize(void)
{
    void (*real)(void) = (void (*)(void))dlsym(RTLD_NEXT, "shmem_finalize");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    finalizing = 1;
    real();
}
