/*
 * Placement and migration policies. The controller asks at three moments
 * and the policy answers: where an untouched block goes on its first touch,
 * what a CPU access to a device-resident block does, and what happens when
 * the device tier is full. A NULL callback takes the default. (The policy
 * layer proper, with access statistics and periodic ticks, builds on this.)
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

/* A CPU access to a device-resident block. */
struct uvas_cpu_fault_ctx {
    size_t block;
    int heap;
    bool advised_cpu;   /* UVAS_ADVISE_ACCESSED_BY_CPU */
    bool can_map;       /* the driver can map device memory for the CPU */
    uint32_t touches;   /* faults seen on the block so far */
};

enum uvas_cpu_fault_action {
    UVAS_CPU_FAULT_MIGRATE = 0, /* bring the block back to the host */
    UVAS_CPU_FAULT_MAP = 1,     /* map its device memory where it is */
};

/* The device tier has no free slot for a block that is to go there. */
struct uvas_full_ctx {
    size_t block;
    size_t capacity_blocks;
    bool first_touch;   /* else an explicit migration */
};

enum uvas_full_action {
    UVAS_FULL_EVICT = 0,      /* push the least recently migrated blocks out */
    UVAS_FULL_PLACE_HOST = 1, /* leave the newcomer on the host */
};

struct uvas_policy {
    const char *name;
    const char *summary;
    /* Residence for an unhinted block on first touch. */
    int (*first_touch)(const struct uvas_place_ctx *ctx);
    /* Default: map if advised and possible, else migrate. */
    int (*cpu_fault)(const struct uvas_cpu_fault_ctx *ctx);
    /* Default: evict. */
    int (*device_full)(const struct uvas_full_ctx *ctx);
};

const struct uvas_policy *uvas_policy_find(const char *name);
/* "first-touch, host, device" for messages. */
const char *uvas_policy_names(void);

/* The decision the controller applies: hints win over the policy, and a
 * device answer falls back to the host tier when no device exists. */
int uvas_policy_place(const struct uvas_policy *p, const struct uvas_place_ctx *ctx);
/* enum uvas_cpu_fault_action; MAP only where ctx->can_map. */
int uvas_policy_cpu_fault(const struct uvas_policy *p, const struct uvas_cpu_fault_ctx *ctx);
/* enum uvas_full_action. */
int uvas_policy_device_full(const struct uvas_policy *p, const struct uvas_full_ctx *ctx);

#endif
