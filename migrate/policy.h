/*
 * The policy in effect: a struct uvas_policy_ops (include/uvas_policy.h),
 * built in or loaded from a shared object, with its state. The controller
 * asks it at first touch, when an agent touches a block resident
 * elsewhere, when the device tier is full, and every tick. Hints and what
 * tiers exist bound its answers.
 */
#ifndef UVAS_POLICY_H
#define UVAS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uvas_policy.h"

struct uvas_policy {
    const struct uvas_policy_ops *ops;
    void *state;
    void *dl;        /* dlopen handle of a policy from a shared object */
    char spec[256];  /* as given: "name:params" */
};

/* Open the policy of spec ("name", "name:k=v,...", "./x.so:k=v"). Status;
 * err names the bad part. */
int uvas_policy_open(const char *spec, struct uvas_policy *p, char *err, size_t errlen);
void uvas_policy_close(struct uvas_policy *p);
/* Would spec open? 0, or nonzero with the reason (the configuration's
 * check, uvas/config.h). */
int uvas_policy_check(const char *spec, char *why, size_t len);
/* The UVAS_POLICY_TRACK_* the policy asks for now (its tracking call,
 * else its flags). */
unsigned uvas_policy_tracking(const struct uvas_policy *p);
/* The built-in names, for messages. */
const char *uvas_policy_names(void);

/* What the policy sees of block bi now. */
void uvas_policy_view(size_t bi, struct uvas_block_view *v);

/* Residence of untouched block bi touched first by agent: hints win, then
 * advice, then the policy; a device answer needs a device tier; stray
 * touches (no allocation) go to the host. */
int uvas_policy_place(const struct uvas_policy *p, size_t bi, int agent);
/* Agent touches block bi resident elsewhere: enum uvas_fault_action;
 * REMOTE only where can_remote, DUPLICATE only for device reads, else
 * MIGRATE. */
int uvas_policy_fault(const struct uvas_policy *p, size_t bi, int agent, int write,
                      bool can_remote);
/* The device tier is full and block bi wants in: enum uvas_full_decision. */
int uvas_policy_device_full(const struct uvas_policy *p, size_t bi);

/* Built-in policies (migrate/policy_*.c). */
extern const struct uvas_policy_ops uvas_policy_first_touch, uvas_policy_host,
    uvas_policy_device, uvas_policy_interleave, uvas_policy_access_counter,
    uvas_policy_hot_cold, uvas_policy_read_mostly, uvas_policy_peers;

/* Answers several built-ins share (policy_basic.c). */
int uvas_policy_at_agent(void *st, const struct uvas_block_view *b, int agent);
int uvas_policy_at_host(void *st, const struct uvas_block_view *b, int agent);
int uvas_policy_serve_remote(void *st, const struct uvas_block_view *b, int agent, int write);
/* UVM's thrashing guard, as access-counter and hot-cold take it: b moved
 * at least `thrash` times and last within `window_ms` of now_ns, so it
 * stays where it is for now. */
bool uvas_policy_thrashing(const struct uvas_block_view *b, double thrash, double window_ms,
                           uint64_t now_ns);
/* A tick policy's per-block memory (arr, *n elements of elem bytes),
 * grown to cover every block index tick t hands over, the new part
 * zeroed: the array to use from now on, or NULL when memory ran out or
 * there is none to cover (arr stays valid; the tick decides nothing). */
void *uvas_policy_per_block(const struct uvas_policy_tick *t, void *arr, size_t *n, size_t elem);
/* Such memory's entries begin with this: */
struct uvas_policy_entry {
    uint32_t generation; /* the block's when the entry was last written */
};
/* Block b's entry in arr (entries of elem bytes, as uvas_policy_per_block
 * grew it), zeroed first when it was kept for an earlier allocation of
 * the block (b->generation moved on: freed and taken again). */
void *uvas_policy_entry(void *arr, size_t elem, const struct uvas_block_view *b);

/* Helpers for policies parsing "k=v,k=v": calls fn for each pair; stops
 * at the first error. Status; err names the bad part. */
int uvas_policy_params(const char *params, char *err, size_t errlen,
                       int (*fn)(void *st, const char *key, const char *val, char *err,
                                 size_t errlen),
                       void *st);
/* Parse a number in [lo, hi] for key; status with a message. */
int uvas_policy_number(const char *key, const char *val, double lo, double hi, double *out,
                       char *err, size_t errlen);

#endif
