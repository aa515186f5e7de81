/*
 * Free runs of blocks, kept sorted by start so that first fit is
 * deterministic: the same sequence of calls gives the same blocks in every
 * process (symmetry). The array is reserved for the worst case (every other
 * block free), so giving blocks back never needs memory and never fails.
 */
#ifndef UVAS_EXTENT_H
#define UVAS_EXTENT_H

#include <stdbool.h>
#include <stddef.h>

struct uvas_extent {
    size_t start, len;
};

struct uvas_extents {
    struct uvas_extent *v;
    size_t n, cap;
    size_t free_blocks;
};

int uvas_extents_init(struct uvas_extents *e, size_t nblocks);
void uvas_extents_fini(struct uvas_extents *e);
/* First fit of n blocks whose start + phase is a multiple of align (a
 * power of two; phase: the range's first block's number, for an alignment
 * of addresses). */
bool uvas_extents_take(struct uvas_extents *e, size_t n, size_t align, size_t phase,
                       size_t *start);
/* Take exactly [start, start+n) if all of it is free (growing in place). */
bool uvas_extents_take_at(struct uvas_extents *e, size_t start, size_t n);
/* Return [start, start+n), coalescing with neighbours. */
void uvas_extents_give(struct uvas_extents *e, size_t start, size_t n);

#endif
