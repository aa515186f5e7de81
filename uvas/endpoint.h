/* The local endpoint uvas-stat reads a live process through (endpoint.c). */
#ifndef UVAS_ENDPOINT_H
#define UVAS_ENDPOINT_H

#include <stddef.h>

/* The endpoint's abstract socket name starts with this, then
 * "<uid>/<pid>/<16 hex digits>"; uvas-stat finds it in /proc/net/unix. */
#define UVAS_ENDPOINT_PREFIX "uvas-stat/"

/* Start serving (unless UVAS_STAT=0); failure only turns it off, with a
 * warning. Status. */
int uvas_endpoint_start(void);
void uvas_endpoint_stop(void);

#endif
