/*
 * The pinner: a background thread that imports (pins) the host pages of
 * blocks a migration staged (staging.h), so that the migrations after
 * find their imports kept. It takes each block in place, as a device
 * access that moves nothing does (BUSY, its gate open, only while no
 * kernel holds it), for the import's fraction of a millisecond, and only
 * while no migration runs; a block it cannot take is left to import on
 * demand.
 */
#ifndef UVAS_MIGRATE_PINNER_H
#define UVAS_MIGRATE_PINNER_H

#include <stdbool.h>
#include <stddef.h>

int uvas_pinner_start(void);
void uvas_pinner_stop(void);
/* Blocks [first, first+n), just published. Dropped when the queue is
 * full (the blocks import on demand then). */
void uvas_pinner_add(size_t first, size_t n);
/* A migration begins (true) or ends: the pinner works only between them. */
void uvas_pinner_migration(bool begin);

#endif
