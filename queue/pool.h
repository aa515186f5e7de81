/* What sync.c needs of the pools (pool.c). */
#ifndef UVAS_QUEUE_POOL_H
#define UVAS_QUEUE_POOL_H

/* After a sync: every pool gives back cached memory whose free points have
 * passed, down to its release threshold. */
void uvas_pool_release_all(void);

#endif
