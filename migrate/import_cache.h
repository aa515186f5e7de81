/*
 * Host pages as copy-engine buffers, cached per block. Importing host
 * memory into a driver pins it, and pinning is the dearest step of a
 * migration when done per migration (docs/migration.md), so a
 * block's import is made once, on its first migration, and kept while its
 * pages stay in the memfd (host-resident, or a shadow while on the
 * device). It is dropped before the pages are freed. Past the cache's cap
 * imports are made for one migration and released after it.
 */
#ifndef UVAS_IMPORT_CACHE_H
#define UVAS_IMPORT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <vulkan/vulkan.h>

#include "migrate/import.h"

int uvas_import_cache_init(size_t nblocks);
void uvas_import_cache_fini(void);

/* A buffer and offset holding block bi's host pages (the caller holds the
 * block BUSY). If `tmp` comes back with a buffer, release it with
 * uvas_import_cache_put once the copy is done. */
int uvas_import_cache_get(size_t bi, VkBuffer *buf, VkDeviceSize *off, struct uvas_import *tmp);
void uvas_import_cache_put(struct uvas_import *tmp);

/* The device address of block bi's host pages, imported and kept in the
 * cache (kernels reach host-resident blocks there; the caller holds the
 * block BUSY). Revalidated first, as a migration would. UVAS_ERR_NOMEM
 * when the cache is full or there is no alias to import. Status. */
int uvas_import_cache_address(size_t bi, VkDeviceAddress *addr);

/* Is block bi's import kept? Then the caller's hold keeps it (BUSY). */
bool uvas_import_cache_has(size_t bi);
/* Import block bi's host pages and keep them, if there is room (the
 * caller holds it BUSY; the pinner, off a migration's path). Status. */
int uvas_import_cache_pin(size_t bi);

/* Forget the imports of blocks [bi, bi+n) before their pages go. */
void uvas_import_cache_drop(size_t bi, size_t n);

/*
 * Drop the imports of blocks [first, first+n) that no longer hold the
 * memfd's pages (the caller holds them BUSY): the user's MADV_REMOVE
 * punched pages the driver still pins, and a copy through the old import
 * would read or write pages nobody else sees. Two signs, neither a system
 * call per block: the fault path found the pages gone and mapped new ones
 * (uvas_block.refilled), or a mincore(2) per run finds a hole.
 * punched[i] says which blocks had a hole (their memfd range must be filled
 * again before a copy lands there). Only drivers that pin are checked.
 * Not seen: a punch written over through another mapping than the range
 * (a peer's window) before the next migration:
 * docs/fault-path.md#process-events.
 */
void uvas_import_cache_revalidate(size_t first, size_t n, bool *punched);

#endif
