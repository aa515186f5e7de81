/* Starting and ending the job, the PE's identity, and the world team. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shmem.h"
#include "shmemx.h"
#include "transport/pe/pe.h"
#include "transport/shmem/error.h"
#include "transport/shmem/internal.h"
#include "uvas.h"
#include "uvas/status.h"

static int thread_level = SHMEM_THREAD_SINGLE;

/* A program that returns from main without shmem_finalize (as programs
 * written for OpenSHMEM 1.3 and earlier do) is finalized at exit, as
 * other implementations do, so that the launcher sees every PE end well.
 * Only on a successful exit: a PE that exits with an error status does
 * not wait in finalize's barrier for peers that may be waiting for it. */
static void finalize_at_exit(int status, void *arg)
{
    (void)arg;
    /* A helper child of the PE that exits 0 inherited this hook: it ran
     * finalize, joined the job's barrier on the parent's behalf and
     * crashed or hung (found by review); a child is no PE
     * (uvas_pe_initialized). */
    if (status == 0 && uvas_pe_initialized())
        shmem_finalize();
}

/* The PE layer, then the collectives' scratch: both collective, so every
 * PE does them in the same order before the program's first allocation. */
static int start(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        uvas_fail(UVAS_ERR_INVAL, "thread level %d is not one of SHMEM_THREAD_SINGLE, "
                  "_FUNNELED, _SERIALIZED or _MULTIPLE", requested);
        return UVAS_ERR_INVAL;
    }
    /* Variables every PE reads alike: refused before the job starts, not
     * at the first allocation or error. */
    int st = uvas_shmem_errors_env_check();
    if (st == UVAS_OK)
        st = uvas_shmem_heap_env_check();
    if (st != UVAS_OK)
        return st;
    int got = SHMEM_THREAD_MULTIPLE;
    st = uvas_pe_init(requested, &got);
    if (st == UVAS_OK)
        st = uvas_shmem_coll_init();
    if (st != UVAS_OK)
        return st;
    /* Every level is supported, so the one asked for is the one given (a
     * program may rely on provided == requested; OpenSHMEM's tests do). */
    thread_level = requested <= got ? requested : got;
    if (provided)
        *provided = thread_level;
    static bool registered;
    if (!registered)
        registered = on_exit(finalize_at_exit, NULL) == 0;
    return UVAS_OK;
}

void shmem_init(void)
{
    if (start(SHMEM_THREAD_SINGLE, NULL) != UVAS_OK) {
        fprintf(stderr, "uvas: shmem_init: %s\n", uvas_last_error());
        exit(1);
    }
}

int shmem_init_thread(int requested, int *provided)
{
    int st = start(requested, provided);
    if (st != UVAS_OK)
        fprintf(stderr, "uvas: shmem_init_thread: %s\n", uvas_last_error());
    return st == UVAS_OK ? 0 : 1;
}

void shmem_query_thread(int *provided)
{
    if (provided)
        *provided = thread_level;
}

/* A second shmem_finalize (programs call it, then return into the
 * at-exit one, or call it twice) does nothing, as in other
 * implementations; one before any shmem_init is still an error. */
static bool ended;

void shmem_finalize(void)
{
    if (ended && !uvas_pe_initialized())
        return;
    ended = true;
    uvas_shmem_coll_fini();
    int st = uvas_pe_finalize();
    if (st != UVAS_OK)
        uvas_shmem_report("shmem_finalize", st);
}

void start_pes(int npes)
{
    (void)npes; /* ignored since OpenSHMEM 1.0: the launcher decides */
    shmem_init();
}

int shmem_my_pe(void)
{
    return uvas_pe_me();
}

int shmem_n_pes(void)
{
    return uvas_pe_count();
}

int _my_pe(void)
{
    return uvas_pe_me();
}

int _num_pes(void)
{
    return uvas_pe_count();
}

int shmem_pe_accessible(int pe)
{
    return pe >= 0 && pe < uvas_pe_count();
}

void shmem_global_exit(int status)
{
    uvas_pe_global_exit(status);
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (!name)
        return;
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}

double shmemx_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void shmem_pcontrol(const int level, ...)
{
    (void)level; /* no profiling levels of uvas's own (shmem.h) */
}
