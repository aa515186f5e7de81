/*
 * Errors of the OpenSHMEM layer. The specification leaves bad input
 * undefined; uvas says what went wrong and, by default, ends the whole job
 * (as MPI_ERRORS_ARE_FATAL), because a PE that carries on after a failed
 * put or a failed collective allocation usually hangs its peers.
 * UVAS_SHMEM_ERRORS=return lets tests and careful programs continue and
 * ask shmemx_last_error() instead.
 */
#include "transport/shmem/error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shmem.h"
#include "transport/pe/pe.h"
#include "uvas.h"
#include "uvas/status.h"

static pthread_once_t mode_once = PTHREAD_ONCE_INIT;
static int errors_return; /* 0: fatal */

static _Thread_local int last_status;
static _Thread_local char last_message[512];

static void read_mode(void)
{
    const char *v = getenv("UVAS_SHMEM_ERRORS");
    if (!v || !*v || strcasecmp(v, "fatal") == 0)
        return;
    if (strcasecmp(v, "return") == 0) {
        errors_return = 1;
        return;
    }
    /* shmem_init refused it already (uvas_shmem_errors_env_check); a call
     * before shmem_init gets the safe mode. */
}

bool uvas_shmem_errors_fatal(void)
{
    pthread_once(&mode_once, read_mode);
    return !errors_return;
}

int uvas_shmem_errors_env_check(void)
{
    const char *v = getenv("UVAS_SHMEM_ERRORS");
    if (!v || !*v || !strcasecmp(v, "fatal") || !strcasecmp(v, "return"))
        return UVAS_OK;
    return uvas_fail(UVAS_ERR_ENV, "UVAS_SHMEM_ERRORS='%s' is unknown: use fatal (errors end "
                     "the job, the default) or return (calls report errors through "
                     "shmemx_last_error)", v);
}

/* "call: message" (uvas_last_error()'s) for shmemx_last_error_string. */
static void remember(const char *call, int status)
{
    const char *msg = uvas_last_error();
    if (!msg || !*msg)
        msg = uvas_strerror(status);
    /* The PE layer's messages often start with the call's name already. */
    size_t n = strlen(call);
    if (strncmp(msg, call, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        msg += n + 2;
    snprintf(last_message, sizeof last_message, "%s: %s", call, msg);
    last_status = status ? status : UVAS_ERR_INVAL;
}

void uvas_shmem_report(const char *call, int status)
{
    pthread_once(&mode_once, read_mode);
    remember(call, status);
    fprintf(stderr, "uvas: %s\n", last_message);
    if (!errors_return)
        uvas_pe_global_exit(1);
}

/* The message, formatted, as the status's (uvas_last_error). */
static void set_message(int status, const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    uvas_fail(status, "%s", buf);
}

int uvas_shmem_fail(const char *call, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_message(status, fmt, ap);
    va_end(ap);
    uvas_shmem_report(call, status);
    return status;
}

int uvas_shmem_decline(const char *call, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_message(status, fmt, ap);
    va_end(ap);
    remember(call, status);
    return status;
}

int shmemx_last_error(void)
{
    return last_status;
}

const char *shmemx_last_error_string(void)
{
    return last_message;
}

void shmemx_clear_error(void)
{
    last_status = 0;
    last_message[0] = '\0';
}
