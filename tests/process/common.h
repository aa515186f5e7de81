/*
 * Helpers shared by the process-event tests: a range with small blocks,
 * a SIGSEGV catcher for accesses the user's own action makes illegal,
 * and a watchdog that fails a hung test.
 */
#ifndef UVAS_TEST_PROCESS_COMMON_H
#define UVAS_TEST_PROCESS_COMMON_H

#include <pthread.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <time.h>

#include "check.h"

/* uvas initialised with UVAS_SIZE and UVAS_BLOCK_SIZE; skip without
 * userfaultfd. The device tier is used where there is one. */
static inline struct uvas_range_desc pe_init(const char *size, const char *block)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", size);
    tu_setenv("UVAS_BLOCK_SIZE", block);
    tu_init_env();
    return tu_require_uffd();
}

/* ---- a SIGSEGV/SIGBUS catcher (per thread) ---- */

static _Thread_local sigjmp_buf pe_jb;
static _Thread_local volatile int pe_armed;
static _Thread_local volatile int pe_sig;

static void pe_on_fault(int sig)
{
    if (!pe_armed) { /* not expected: die with the signal */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    pe_sig = sig;
    siglongjmp(pe_jb, 1);
}

static inline void pe_catch_faults(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pe_on_fault;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

/* Read (write = 0) or write one byte at p; the signal it raised, or 0. */
static inline int pe_try_access(volatile unsigned char *p, int write, unsigned char *val)
{
    pe_sig = 0;
    if (sigsetjmp(pe_jb, 1) == 0) {
        pe_armed = 1;
        if (write)
            *p = *val;
        else
            *val = *p;
    }
    pe_armed = 0;
    return pe_sig;
}

/* ---- watchdog ---- */

static unsigned pe_watch_seconds;

static void *pe_watchdog(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL); /* the tests' signals are not for us */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)pe_watch_seconds;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    fprintf(stderr, "FAIL: the test hung for %u s (watchdog)\n", pe_watch_seconds);
    tu_exit(TU_EXIT_FAIL);
    return NULL;
}

/* Fail the test if it is not over in `seconds` (a thread, not SIGALRM,
 * which tests of signals use). */
static inline void pe_deadline(unsigned seconds)
{
    pe_watch_seconds = seconds;
    pthread_t th;
    pthread_create(&th, NULL, pe_watchdog, NULL);
    pthread_detach(th);
}

/* Wait until [p, p+len) is mapped again (the fault service refills holes
 * the user's munmap left in the range); false after `ms` milliseconds. */
/* Is all of [p, p+len) mapped read-write from the host tier's memfd? Not
 * merely mapped: the fault service first reserves a hole with a PROT_NONE
 * placeholder, then maps the memfd over it, so "mapped" alone can be seen
 * while an access would still get SIGSEGV. */
static inline int pe_mapped_from_memfd(void *p, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    uintptr_t want = (uintptr_t)p, end = want + len;
    char line[512];
    while (want < end && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        int off = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &off) < 3)
            continue;
        if (hi <= want || lo > want)
            continue;
        if (perms[0] != 'r' || perms[1] != 'w' || !strstr(line + off, "uvas-host-tier"))
            break;
        want = hi;
    }
    fclose(f);
    return want >= end;
}

static inline int pe_wait_mapped(void *p, size_t len, unsigned ms)
{
    for (unsigned i = 0; i < ms * 10; i++) {
        if (pe_mapped_from_memfd(p, len))
            return 1;
        struct timespec ts = {.tv_nsec = 100000};
        nanosleep(&ts, NULL);
    }
    return pe_mapped_from_memfd(p, len);
}

static inline void pe_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131u + seed * 7u + (i >> 12)) | 1u);
}

static inline long pe_check_pattern(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)((i * 131u + seed * 7u + (i >> 12)) | 1u))
            return (long)i;
    return -1;
}

#endif
