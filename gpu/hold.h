/*
 * What a launch holds: the blocks its kernel may touch, each brought where
 * the device reaches it (the policy's GPU first touch, a migration, or the
 * host pages in place) and held so that no transition moves it until the
 * kernel has finished; its translation is published for the holds'
 * duration (xlat.h). Blocks are held in address order without waiting on
 * any: a block another agent has taken makes the launch let go of all and
 * try again, so a launch never holds one block while it waits for another
 * (a migration waiting for the first would wait forever).
 */
#ifndef UVAS_GPU_HOLD_H
#define UVAS_GPU_HOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu/xlat.h"

struct uvas_hold_set {
    size_t *want;     /* block indices asked for, sorted, unique */
    size_t nwant, cap;
    size_t nheld;     /* want[0, nheld) are held */
    size_t *extra;    /* blocks held for faults while a kernel ran */
    size_t nextra, cap_extra;
};

/* Ask for the blocks of the live allocation holding p; false if p is in
 * none (nothing asked). Status through *rc (memory for the set). */
bool uvas_hold_want_alloc(struct uvas_hold_set *s, const void *p, int *rc);
/* Ask for the blocks of [p, p + len), which must lie in one live
 * allocation; false if it does not (nothing asked). Status through *rc. */
bool uvas_hold_want_range(struct uvas_hold_set *s, const void *p, size_t len, int *rc);
/* Hold every block asked for (and not yet held). Status; on failure the
 * set holds nothing. Takes x->run to let go (its translations may be out). */
int uvas_hold_all(struct uvas_hold_set *s, struct uvas_xlat *x);
/* Before a run (x->run held): the translations of every block held. */
void uvas_hold_publish(struct uvas_hold_set *s, struct uvas_xlat *x);
/* While the kernel runs (x->run held): hold block bi for an access that
 * waits on it, and publish its translation, without waiting for it
 * (*busy: another agent has it; try again). in_place: no copy (the
 * copies' queue is the kernel's). Status. */
int uvas_hold_block(struct uvas_hold_set *s, struct uvas_xlat *x, size_t bi, bool in_place,
                    bool *busy);
/* After a run (x->run held, its counters copied): every held block's
 * counted accesses, times `scale` (the sample's), reach the block as the
 * device agent's accesses; taken from the copy, so a block in several
 * sets counts once. */
void uvas_hold_count(const struct uvas_hold_set *s, struct uvas_xlat *x, uint64_t scale);
/* Widen [*lo, *hi] to the blocks the set holds. */
void uvas_hold_span(const struct uvas_hold_set *s, size_t *lo, size_t *hi);
/* Does the set hold block bi? */
bool uvas_hold_has(const struct uvas_hold_set *s, size_t bi);
/* Let go of every hold (the set keeps what it asked for); x->run held. */
void uvas_hold_release(struct uvas_hold_set *s, struct uvas_xlat *x);
void uvas_hold_free(struct uvas_hold_set *s);

#endif
