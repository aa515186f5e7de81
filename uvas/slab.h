/*
 * Small allocations share blocks: a slab is one block of one heap kind cut
 * into slots of one size class. Its slot bitmap and requested sizes live in
 * a metadata area reserved for every block of the range (committed only
 * for slab blocks), never inside the range: touching the range would
 * populate blocks, and a device-resident block is not CPU-readable. The
 * area is never unmapped while the range lives, so lock-free queries may
 * read it while another thread frees.
 */
#ifndef UVAS_SLAB_H
#define UVAS_SLAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uvas.h"

#define UVAS_SLAB_MAX_CLASSES 64
#define UVAS_SLAB_MIN 16u

struct uvas_slabs {
    uint32_t nclasses;
    uint32_t class_size[UVAS_SLAB_MAX_CLASSES];
    /* floor(2^42 / size) + 1: uvas_slab_slot divides by multiplying. */
    uint64_t class_magic[UVAS_SLAB_MAX_CLASSES];
    size_t max_small;
    uint32_t slots_max;        /* block_size / UVAS_SLAB_MIN */
    uint32_t words_per_block;  /* bitmap words per block */
    _Atomic uint64_t *bitmap;  /* nblocks * words_per_block */
    _Atomic uint32_t *sizes;   /* nblocks * slots_max */
    size_t meta_bytes;
    /* Partial slabs (some slots free) and one cached empty slab per
     * heap and class: block index + 1, 0 for none. */
    uint32_t partial[UVAS_HEAP_COUNT][UVAS_SLAB_MAX_CLASSES];
    uint32_t empty[UVAS_HEAP_COUNT][UVAS_SLAB_MAX_CLASSES];
};

/* off / class_size[cls] for an offset inside a block. Exact: the magic's
 * error, under off * 2^-42 <= 2^-21, never reaches the next integer while
 * the divisor stays under 2^21 (classes are at most an eighth of a block
 * of at most 2 MiB). A put's symmetric check does this on every call; a
 * div instruction was its largest cost. */
static inline uint32_t uvas_slab_slot(const struct uvas_slabs *s, uint32_t cls, size_t off)
{
    return (uint32_t)(((uint64_t)off * s->class_magic[cls]) >> 42);
}

int uvas_slabs_init(struct uvas_slabs *s, size_t block_size, size_t nblocks);
void uvas_slabs_fini(struct uvas_slabs *s);

/* Class for (size, align), or -1 if the request is not small. */
int uvas_slab_class(const struct uvas_slabs *s, size_t size, size_t align);

static inline _Atomic uint64_t *uvas_slab_bits(const struct uvas_slabs *s, size_t bi)
{
    return s->bitmap + bi * s->words_per_block;
}

static inline _Atomic uint32_t *uvas_slab_sizes(const struct uvas_slabs *s, size_t bi)
{
    return s->sizes + bi * s->slots_max;
}

static inline bool uvas_slab_live(const struct uvas_slabs *s, size_t bi, uint32_t slot)
{
    uint64_t w = atomic_load_explicit(&uvas_slab_bits(s, bi)[slot / 64], memory_order_acquire);
    return (w >> (slot % 64)) & 1;
}

/* Lowest free slot below nslots, set it; -1 if none. Allocator lock. */
long uvas_slab_take_slot(struct uvas_slabs *s, size_t bi, uint32_t nslots);
void uvas_slab_put_slot(struct uvas_slabs *s, size_t bi, uint32_t slot);
/* Give back a released (empty) slab's metadata pages. */
void uvas_slab_forget(struct uvas_slabs *s, size_t bi);

#endif
