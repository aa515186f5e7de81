/*
 * The migration layer's own state, beside the ground's uvas_g: the copy
 * engine and the placement policy. The composition root
 * (uvas/api/init.c) sets them up and tears them down.
 */
#ifndef UVAS_MIGRATE_STATE_H
#define UVAS_MIGRATE_STATE_H

#include "migrate/copy.h"
#include "migrate/policy.h"

struct uvas_migrate_state {
    struct uvas_copier copier; /* the device's copy queue (copy.h) */
    struct uvas_policy policy; /* where blocks go (policy.h) */
};

extern struct uvas_migrate_state uvas_mg;

#endif
