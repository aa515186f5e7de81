/*
 * Preloaded into OSHMEM's PEs by scripts/conformance/run.py only: Debian
 * 12's Open MPI 4.1.4 segfaults in or after shmem_finalize once a
 * program's work is done (open-mpi/ompi#11604, fixed in 4.1.6), also in
 * the finalize it runs at exit for programs that return from main
 * without one, which would count every OSHMEM run as a crash. A SIGSEGV
 * after shmem_finalize was entered or main returned is reported on stderr
 * (run.py counts the PEs that say so) and ends the process with main's
 * status (0 after shmem_finalize); one before stays a crash.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t finalizing, status;

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
    _exit(status);
}

static void arm(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    finalizing = 1;
}

void shmem_finalize(void)
{
    void (*real)(void) = (void (*)(void))dlsym(RTLD_NEXT, "shmem_finalize");
    arm();
    real();
}

/* main's return: the program's work is done, what follows is exit's. */
typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int guarded_main(int argc, char **argv, char **envp)
{
    int r = real_main(argc, argv, envp);
    status = r & 0xff;
    arm();
    return r;
}

/* A program that ends with exit(status) after shmem_finalize keeps its
 * status, should the crash come in exit's handlers. */
void exit(int code)
{
    void (*real)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
    status = code & 0xff;
    real(code);
    __builtin_unreachable();
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    int (*real)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *) =
        (int (*)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
                 void *))dlsym(RTLD_NEXT, "__libc_start_main");
    real_main = main;
    return real(guarded_main, argc, argv, init, fini, rtld_fini, stack_end);
}
