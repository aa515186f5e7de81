/* Status reporting inside the library: set the thread's message and return. */
#ifndef UVAS_STATUS_H
#define UVAS_STATUS_H

#include "uvas.h"

/* The longest message a thread keeps (uvas_last_error): buffers that carry
 * one elsewhere are this size, so nothing arrives cut short. */
#define UVAS_MSG_MAX 1024

/* Record a formatted message for uvas_last_error() and return status. */
int uvas_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Clear the thread's message (start of a public call that may fail). */
void uvas_clear_error(void);
/* Warning to stderr unless quiet; "uvas: " prefix. */
void uvas_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
