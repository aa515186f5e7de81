/*
 * The controller's state. One process has one controller (uvas_g); every
 * layer reads the hot fields (base, shift, block table) without a lock.
 */
#ifndef UVAS_INTERNAL_H
#define UVAS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "uvas.h"
#include "uvas/block.h"
#include "uvas/config.h"
#include "uvas/devtier.h"
#include "uvas/extent.h"
#include "uvas/slab.h"
#include "uvas/stats.h"
#include "uvas/uffd.h"

struct uvas_global {
    /* Hot, read-only after init. */
    char *base;
    size_t size;
    unsigned shift;          /* log2(block_size) */
    size_t block_size;
    size_t nblocks;
    struct uvas_block *bt;   /* block table, nblocks entries */
    struct uvas_desc *descs; /* allocation descriptors, type-stable */

    atomic_bool ready;       /* init complete; cleared first by finalize */
    _Atomic uint64_t generation; /* the live range's number, 0 when none
                                    (uvas_range_generation) */
    uint64_t ranges_made;         /* ranges made so far (init lock) */
    bool quiet;
    pthread_mutex_t lock;    /* init/finalize and the allocator */

    struct uvas_config cfg;  /* the effective options */
    int fault_mode;          /* UVAS_FAULT_UFFD or UVAS_FAULT_EAGER */
    char fault_note[1024];

    int memfd;               /* the host tier's backing file */
    char *alias;             /* the memfd mapped again, unregistered: the
                                engine's view of host pages (NULL when the
                                range is too large to map twice) */
    _Atomic uint64_t *gates; /* residence table (uvas/gate.h), one word per block */
    int gate_fd;             /* its memfd, sealed against writable mappings */
    struct uvas_devtier devtier;
    char device_note[1024];
    struct uvas_uffd uffd;   /* fd -1 in eager mode */

    struct uvas_extents extents; /* free block runs (allocator lock) */
    struct uvas_slabs slabs;     /* small-object slabs (allocator lock) */
    struct uvas_counters ctr;    /* statistics (atomics) */
};

extern struct uvas_global uvas_g;

static inline bool uvas_in_range(const void *p)
{
    return (uintptr_t)p - (uintptr_t)uvas_g.base < uvas_g.size;
}

static inline size_t uvas_block_index(const void *p)
{
    return ((uintptr_t)p - (uintptr_t)uvas_g.base) >> uvas_g.shift;
}

static inline char *uvas_block_addr(size_t bi)
{
    return uvas_g.base + (bi << uvas_g.shift);
}

/* Public calls that use the controller's state count themselves in and out,
 * so uvas_finalize can wait for those in flight before tearing it down:
 * enter returns UVAS_ERR_NOT_INIT (with a message naming fn) once finalize
 * has begun or before init, and then the call must not go on. */
int uvas_api_enter(const char *fn);
void uvas_api_leave(void);
/* Until no call is counted in (uvas_finalize, after clearing ready). */
void uvas_api_wait_idle(void);

#endif
