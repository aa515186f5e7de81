/*
 * Placement policies: where a block lives when it is first touched. The
 * controller asks; the policy answers with a residence. Later issues add
 * the migration callbacks (CPU fault on a device block, device full, tick).
 */
#ifndef UVAS_POLICY_H
#define UVAS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uvas_place_ctx {
    size_t block;        /* block index in the range */
    void *addr;          /* faulting address (first touch) */
    int heap;            /* enum uvas_heap of the allocation owning it */
    bool stray;          /* no live allocation covers the block */
    bool device_present; /* a device tier exists */
    bool cpu_access;     /* the touch came from a CPU (fault) */
    int preferred;       /* advised residence, 0 none */
};

struct uvas_policy {
    const char *name;
    const char *summary;
    /* Residence for an unhinted block on first touch. */
    int (*first_touch)(const struct uvas_place_ctx *ctx);
};

const struct uvas_policy *uvas_policy_find(const char *name);
/* "first-touch, host, device" for messages. */
const char *uvas_policy_names(void);

/* The decision the controller applies: hints win over the policy, and a
 * device answer falls back to the host tier when no device exists. */
int uvas_policy_place(const struct uvas_policy *p, const struct uvas_place_ctx *ctx);

#endif
