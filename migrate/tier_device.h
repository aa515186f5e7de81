/* The device tier's operations, the engine's (tier_device.c). */
#ifndef UVAS_MIGRATE_TIER_DEVICE_H
#define UVAS_MIGRATE_TIER_DEVICE_H

#include "uvas/tier.h"

extern const struct uvas_tier_ops uvas_tier_device;

#endif
