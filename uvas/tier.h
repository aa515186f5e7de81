/*
 * A memory tier: where a block's pages can live. The host tier is the
 * range's memfd; the device tier (Vulkan) plugs in beside it.
 */
#ifndef UVAS_TIER_H
#define UVAS_TIER_H

#include <stddef.h>
#include <stdint.h>

struct uvas_tier_ops {
    int res;          /* enum uvas_residence */
    const char *name;
    /* Back block bi with zeroed memory of this tier and make the CPU view
     * consistent, the page at `hot` first (fault path: must not touch the
     * range itself). */
    int (*populate)(size_t bi, uintptr_t hot);
    /* Give back the memory of blocks [bi, bi+n); they read zero after. */
    int (*release)(size_t bi, size_t n);
};

extern const struct uvas_tier_ops uvas_tier_host;
extern const struct uvas_tier_ops uvas_tier_device;

/* The tier of a residence, NULL for UVAS_RES_UNPOPULATED or an absent one. */
const struct uvas_tier_ops *uvas_tier_of(int res);

#endif
