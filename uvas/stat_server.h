/* The server uvas-stat reads a live process through (stat_server.c). */
#ifndef UVAS_STAT_SERVER_H
#define UVAS_STAT_SERVER_H

#include <stddef.h>

/* The endpoint's abstract socket name starts with this, then
 * "<uid>/<pid>/<16 hex digits>"; uvas-stat finds it in /proc/net/unix. */
#define UVAS_STAT_SERVER_PREFIX "uvas-stat/"

/* Start serving (unless UVAS_STAT=0); failure only turns it off, with a
 * warning. Status. */
int uvas_stat_server_start(void);
void uvas_stat_server_stop(void);

#endif
