/* The tiers by residence (tier.h). */
#include "uvas/tier.h"

#include "uvas/internal.h"

static const struct uvas_tier_ops *device_ops;

void uvas_tier_device_register(const struct uvas_tier_ops *ops)
{
    device_ops = ops;
}

const struct uvas_tier_ops *uvas_tier_of(int res)
{
    if (res == UVAS_RES_HOST)
        return &uvas_tier_host;
    if (res == UVAS_RES_DEVICE && uvas_devtier_present(&uvas_g.devtier))
        return device_ops;
    return NULL;
}
