/*
 * Device memory shared with another process of the node (a device pool's
 * allocations, queue/pool_dev.c): blocks marked UVAS_BA_SHARED stay in
 * their device slot for as long as they are allocated. No migration,
 * eviction or copy-based CPU view moves them (migrate.c); the CPU reaches
 * them only where the device memory maps in place (cpuview.c).
 */
#ifndef UVAS_MIGRATE_SHARED_H
#define UVAS_MIGRATE_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The exporter's side: n blocks from the one at first, of one live allocation,
 * made device-resident in slab slots (moving them there if they are not)
 * and marked shared; slots[i] is the i-th block's slot. Status. */
int uvas_shared_fix(const void *first, size_t n, uint32_t *slots);

/* The importer's side: n blocks from the one at first, of an allocation of its
 * own take the given slots (uvas_devtier_foreign_slot) in place of their
 * memory, device-resident and shared. On failure the slots not taken are
 * freed; freeing the allocation releases those taken. Status. */
int uvas_shared_adopt(const void *first, size_t n, const uint32_t *slots);

/* Hold off uvas_finalize while a pool's sharing works on the range and the
 * device tier (the public calls' uvas_api_enter); status, and leave after
 * UVAS_OK only. */
int uvas_shared_enter(const char *fn);
void uvas_shared_leave(void);

/* What an importer must match: the device, the block size, and how the
 * slabs were made (their size; where their memory starts in a descriptor
 * that maps, SIZE_MAX where none does). false without a device tier. */
struct uvas_shared_dev {
    uint8_t uuid[16];
    uint64_t block_size, slab_bytes, fd_base;
};
bool uvas_shared_describe(struct uvas_shared_dev *d);
/* A fixed block's slot as (slab number, byte offset in the slab), and a
 * close-on-exec descriptor of that slab (the caller's to close). Status. */
void uvas_shared_where(uint32_t slot, uint32_t *slab, uint64_t *off);
int uvas_shared_slab_fd(uint32_t slot, int *fd);
/* A record's list of len bytes in a sealed memfd, for a message too large
 * for the channel's packets (the caller closes *fd). Status, fn's message. */
int uvas_shared_list_fd(const void *list, size_t len, int *fd, const char *fn);
/* The importer's: a slab of the exporter's (d) through fd, consumed, as
 * *id; a slot at off in it; the importer's own hold on it let go. */
int uvas_shared_import(int fd, const struct uvas_shared_dev *d, uint32_t *id);
int uvas_shared_slot(uint32_t id, uint64_t off, uint32_t *slot);
void uvas_shared_unslot(uint32_t slot); /* one never adopted */
void uvas_shared_unimport(uint32_t id);
/* Free the importer's allocation at base (uvas_free refuses it). Status. */
int uvas_shared_release(void *base);
/* Does a hold of the program's (uvas_gpu_hold) keep a byte of the
 * allocation holding p? Such memory is not given back (uvas/alloc.h). */
bool uvas_shared_held(const void *p);

#endif
