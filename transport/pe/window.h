/* The fd server and the windows onto local peers (window.c). */
#ifndef UVAS_PE_WINDOW_H
#define UVAS_PE_WINDOW_H

#include <stdint.h>

#include "transport/pe/job.h"

int uvas_window_serve(void);
int uvas_window_open(struct uvas_peer *p);
void uvas_window_close(struct uvas_peer *p);
void uvas_window_stop(void);
/* Ask p for the descriptor of its device slab `slab`. Status. */
int uvas_window_slab_fd(struct uvas_peer *p, uint32_t slab, int *fd);

#endif
