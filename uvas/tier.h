/*
 * A memory tier: where a block's pages can live. The host tier is the
 * range's memfd (tier_host.c); the device tier's operations are the
 * migration engine's (migrate/tier_device.c), registered here by the
 * composition root, so this floor never calls up.
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

/* What the floors above lend the host tier, set before the range serves
 * faults: a zero fill spread over the fault service's threads (a
 * status), and the drop of the import cache's pins on pages about to be
 * punched. Unset: a fill by the calling thread alone, nothing to drop. */
struct uvas_host_tier_hooks {
    int (*zero)(uintptr_t addr, size_t len, uintptr_t hot);
    void (*before_release)(size_t bi, size_t n);
};
void uvas_tier_host_lend(const struct uvas_host_tier_hooks *hooks);

/* The device tier's operations (NULL: none); registered once at init. */
void uvas_tier_device_register(const struct uvas_tier_ops *ops);

/* The tier of a residence, NULL for UVAS_RES_UNPOPULATED or an absent one. */
const struct uvas_tier_ops *uvas_tier_of(int res);

#endif
