/*
 * Staging lanes: host memory the device reaches, allocated (and pinned by
 * the driver) once, into which a migration copies the pages of blocks
 * whose import is not kept yet. A first migration of freshly written
 * pages imports them, which pins them at the driver's pace (4-5 GB/s on
 * the H200, one thread or many: docs/migration.md); copying them into a
 * lane with the fault service's threads and the lane to the device runs
 * at the copy's pace instead, and the pinner (pinner.h) imports the
 * blocks afterwards, off the caller's path, for the migrations after.
 */
#ifndef UVAS_MIGRATE_STAGING_H
#define UVAS_MIGRATE_STAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <vulkan/vulkan.h>

/* A lane of `bytes` (a stage's blocks), or false where none is free, the
 * device has none to give, or staging is off (UVAS_STAGE_FIRST=0). */
struct uvas_lane {
    int index;
    char *map;       /* the CPU's view */
    VkBuffer buf;    /* the device's */
    VkDeviceSize off;
};
bool uvas_staging_take(size_t bytes, struct uvas_lane *out);
/* Makes the lanes now (uvas_init: allocating and pinning them costs tens
 * of milliseconds, which a program's first migration would otherwise wait
 * for); a take meanwhile waits for them. */
void uvas_staging_prepare(void);
void uvas_staging_give(struct uvas_lane *l);
/* At the engine's teardown (no migration in flight). */
void uvas_staging_fini(void);

#endif
