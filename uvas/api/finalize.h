/* What a floor above the composition root lends uvas_finalize (init.c). */
#ifndef UVAS_API_FINALIZE_H
#define UVAS_API_FINALIZE_H

/* A floor that holds work on the range (the queues) lends a drain, called
 * first, while the range is still up: it waits for the work enqueued
 * before it. A failed drain (status, message set) leaves uvas
 * initialised. */
void uvas_finalize_lend_drain(int (*drain)(void));

#endif
