/* How the OpenSHMEM layer reports bad input (see error.c). */
#ifndef UVAS_TRANSPORT_SHMEM_ERROR_H
#define UVAS_TRANSPORT_SHMEM_ERROR_H

#include <stdbool.h>

/*
 * Report a failed call whose message is in uvas_last_error(): print
 * "uvas: <call>: <message>" to stderr, remember status and message for
 * shmemx_last_error(), then end the job (UVAS_SHMEM_ERRORS unset or
 * "fatal") or return (UVAS_SHMEM_ERRORS=return). status is a negative
 * UVAS_ERR_*.
 */
void uvas_shmem_report(const char *call, int status);

/* Record a formatted message as uvas_last_error() and report it. Returns
 * status, for `return uvas_shmem_fail(...)`. */
int uvas_shmem_fail(const char *call, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* An outcome the specification defines as a nonzero return, not an error
 * of the program (a team made from SHMEM_TEAM_INVALID, a context of
 * SHMEM_CTX_INVALID, no resources left for one more team or context):
 * remembered for shmemx_last_error() like a report, but neither printed
 * nor fatal. Returns status. */
int uvas_shmem_decline(const char *call, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Do errors end the job (UVAS_SHMEM_ERRORS unset or fatal)? */
bool uvas_shmem_errors_fatal(void);

/* UVAS_SHMEM_ERRORS is fatal, return or unset; else UVAS_ERR_ENV with a
 * message (shmem_init refuses to start). */
int uvas_shmem_errors_env_check(void);

#endif
