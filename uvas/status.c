/* Status names and the per-thread detailed message. */
#include "uvas/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "uvas/internal.h"

static _Thread_local char last_error[UVAS_MSG_MAX];

const char *uvas_strerror(int status)
{
    switch (status) {
    case UVAS_OK: return "UVAS_OK: success";
    case UVAS_ERR_INVAL: return "UVAS_ERR_INVAL: invalid argument";
    case UVAS_ERR_NOT_OWNED: return "UVAS_ERR_NOT_OWNED: pointer is not a live uvas allocation";
    case UVAS_ERR_NOMEM: return "UVAS_ERR_NOMEM: out of memory in the range or tier";
    case UVAS_ERR_ADDR_IN_USE: return "UVAS_ERR_ADDR_IN_USE: base address already mapped";
    case UVAS_ERR_ENV: return "UVAS_ERR_ENV: invalid environment variable";
    case UVAS_ERR_ALREADY_INIT: return "UVAS_ERR_ALREADY_INIT: initialised with other options";
    case UVAS_ERR_NOT_INIT: return "UVAS_ERR_NOT_INIT: uvas is not initialised";
    case UVAS_ERR_PERM: return "UVAS_ERR_PERM: operation not permitted";
    case UVAS_ERR_SYS: return "UVAS_ERR_SYS: system call failed";
    case UVAS_ERR_NO_DEVICE: return "UVAS_ERR_NO_DEVICE: no device tier";
    case UVAS_ERR_DOUBLE_FREE: return "UVAS_ERR_DOUBLE_FREE: allocation already freed";
    default: return "UVAS_ERR_?: unknown status";
    }
}

const char *uvas_last_error(void)
{
    return last_error;
}

void uvas_clear_error(void)
{
    last_error[0] = '\0';
}

/* Formatted aside first: callers may pass uvas_last_error() itself as an
 * argument ("put ... failed: %s"), and formatting into the buffer being
 * read garbles the message. */
int uvas_fail(int status, const char *fmt, ...)
{
    char buf[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    memcpy(last_error, buf, sizeof buf);
    return status;
}

void uvas_warn(const char *fmt, ...)
{
    if (uvas_g.quiet)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "uvas: %s\n", buf);
}
