/*
 * What the engine's files share (private to migrate/): giving a taken
 * block back and waking the threads parked on it, and dropping a
 * duplicate's device copy (in_place.c, which migrate.c calls and which
 * calls nothing of migrate.c's).
 */
#ifndef UVAS_MIGRATE_TRANSITION_H
#define UVAS_MIGRATE_TRANSITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uvas/internal.h"
#include "uvas/uffd.h"

/* Wake the threads parked in block bi's pages. */
static inline void uvas_migrate_wake(size_t bi)
{
    uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

/* Give a block back unchanged (no new version: nothing moved), and wake
 * it: the fault service drops a fault on a BUSY block for its holder to
 * wake, so a holder that wakes nobody strands the faulting thread (a peer's
 * read parked for ever behind uvas_migrate_collapse's or a same-place
 * migration's brief hold on blocks hot-cold's sampling had unmapped). */
static inline void uvas_migrate_untake(struct uvas_block *b, uint32_t seen)
{
    uvas_blk_unbusy(b, seen);
    uvas_migrate_wake((size_t)(b - uvas_g.bt));
}

/* A duplicated block, taken (seen: its state before), keeps its host
 * copy only: no data moves. */
void uvas_migrate_collapse_taken(size_t bi, uint32_t seen);

#endif
