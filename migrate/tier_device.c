/* The device tier's operations (uvas/tier.h): devtier's slots, filled and
 * emptied by the engine. Registered at init by the composition root. */
#include "migrate/tier_device.h"

#include "migrate/migrate.h"
#include "uvas/internal.h"

static int device_populate(size_t bi, uintptr_t hot)
{
    (void)hot; /* a device slot is filled whole by the copy engine */
    return uvas_migrate_place_on_device(bi);
}

static int device_release(size_t bi, size_t n)
{
    return uvas_migrate_drop_device(bi, n);
}

const struct uvas_tier_ops uvas_tier_device = {
    .res = UVAS_RES_DEVICE,
    .name = "device",
    .populate = device_populate,
    .release = device_release,
};
