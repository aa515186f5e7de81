/*
 * What the allocator (alloc.c) asks of the floors above it, lent by the
 * composition root: where an eagerly placed block goes (the placement
 * policy), moving a device-heap allocation to the device and settling
 * queued migrations of blocks being freed (the migration engine). Unset: blocks go to the host, and device-heap
 * memory stays where first touch puts it.
 */
#ifndef UVAS_ALLOC_H
#define UVAS_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

struct uvas_alloc_hooks {
    /* Eager mode (no userfaultfd): the residence of block bi, placed now. */
    int (*place)(size_t bi);
    /* Blocks [first, first+n) of a device-heap allocation go to the
     * device now, waiting. Status. */
    int (*to_device)(size_t first, size_t n);
    /* Blocks [first, first+n) are being given back: asynchronous work
     * queued on them (uvas_migrate with UVAS_MIGRATE_ASYNC) has ended
     * when this returns, so none moves a block after it is freed and
     * reused (as cudaFree waits for the device). */
    void (*settle)(size_t first, size_t n);
    /* Does a hold of the program's (uvas_gpu_hold) keep a byte of
     * [p, p+n)? Such memory is not freed (the GPU floor). */
    bool (*held)(const void *p, size_t n);
};

void uvas_alloc_lend(const struct uvas_alloc_hooks *hooks);

/* The allocator behind the public calls (uvas/api/alloc.c), which start
 * uvas if needed and count the call in (uvas_api_enter) first. Each sets
 * errno and the message on failure; fn names the public call. */
void *uvas_alloc_entered(size_t size, size_t align, unsigned hints, const char *fn);
/* total bytes that read zero. */
void *uvas_calloc_entered(size_t total);
/* p is not NULL. */
void *uvas_realloc_entered(void *p, size_t size);
/* Free an allocation made of another process's device memory (migrate/
 * shared.h), which uvas_free refuses: its imported pool's end. Status. */
int uvas_free_import(void *p);
/* Does a hold of the program's keep a byte of the allocation holding p
 * (its hook, above)? False outside a live allocation. */
bool uvas_alloc_held(const void *p);

#endif
