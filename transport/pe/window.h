/* The fd server and the windows onto local peers (window.c). */
#ifndef UVAS_PE_WINDOW_H
#define UVAS_PE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "transport/pe/job.h"

/* The path of the fd server socket of PE `rank` of the job named nspace,
 * process pid, in dir, into buf[n]: unique on the node however long the
 * namespace, and short enough for a socket address. Status. */
int uvas_window_sock_name(char *buf, size_t n, const char *dir, const char *nspace, int rank,
                          int pid);
int uvas_window_serve(void);
int uvas_window_open(struct uvas_peer *p);
void uvas_window_close(struct uvas_peer *p);
void uvas_window_stop(void);
/* Ask p for the descriptor of its device slab `slab`. Status. */
int uvas_window_slab_fd(struct uvas_peer *p, uint32_t slab, int *fd);

#endif
