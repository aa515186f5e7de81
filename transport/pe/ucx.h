/* UCX: context, worker, endpoints, progress thread (ucx.c). */
#ifndef UVAS_PE_UCX_H
#define UVAS_PE_UCX_H

int uvas_ucx_start(void);
int uvas_ucx_connect(void);
void uvas_ucx_stop(void);
/* Wait for a request (NULL or a status pointer: done). Status. */
int uvas_ucx_wait(void *req, const char *what);
int uvas_ucx_flush(void);
/* One poll of a wait loop (progress, or yield the CPU on an oversubscribed
 * node); spins counts from 0 at the loop's start. A wait that lasts checks
 * every second whether the local peers are alive (uvas_pe_check_alive), so
 * a dead PE ends the job instead of a hang. */
void uvas_ucx_poll(unsigned spins);

#endif
