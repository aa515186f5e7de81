/* The composition root's own entry (init.c). */
#ifndef UVAS_API_INIT_H
#define UVAS_API_INIT_H

/* Initialise with NULL options if nobody has yet (and uvas was not
 * finalized); status. */
int uvas_ensure_init(void);

#endif
