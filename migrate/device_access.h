/*
 * The device as an agent that uses memory: what a device access does to a
 * block (the policy's first touch, migration, duplication, or service in
 * place through the imported host pages), for the copy-engine accesses of
 * uvas_device_access and for kernels (gpu/), which hold what it returns.
 */
#ifndef UVAS_DEVICE_ACCESS_H
#define UVAS_DEVICE_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A block taken for a device access. */
struct uvas_device_hold {
    uint32_t seen; /* its state (BUSY is ours): DEVICE, or HOST when remote */
    bool remote;   /* HOST: the device reaches it through its imported pages */
    bool busy;     /* !wait and another holder had it: nothing was taken */
};

/* How uvas_device_take goes about it. */
enum {
    UVAS_DEV_WRITE = 1 << 0,    /* the device may write: a host duplicate goes */
    UVAS_DEV_WAIT = 1 << 1,     /* wait for a block another agent has taken */
    UVAS_DEV_IN_PLACE = 1 << 2, /* no copy: untouched blocks go to the host, host
                                   blocks are served where they are (the copy
                                   engine's queue is not to be used) */
};

/*
 * Bring block bi where the device reaches it, as the policy decides for a
 * device access, and return with it taken. Without UVAS_DEV_WAIT, a block
 * another agent has taken is not waited for (h->busy): a caller holding
 * other blocks must not wait. Status; on success the caller ends with
 * uvas_device_give_back or by publishing the state itself.
 */
int uvas_device_take(size_t bi, unsigned how, struct uvas_device_hold *h);
void uvas_device_give_back(size_t bi, const struct uvas_device_hold *h);

/* What uvas_device_prepare did for a block, for the take that follows. */
enum {
    UVAS_PREP_NONE,    /* nothing: uvas_device_take counts and decides */
    UVAS_PREP_COUNTED, /* counted as a device access, and moved if the policy said so */
    UVAS_PREP_REMOTE,  /* counted, and the policy said serve it in place:
                          take it with UVAS_DEV_IN_PLACE */
};

/*
 * A launch's blocks bi[0..n) (sorted), before they are taken one by one:
 * each is counted as one device access, and the policy's decisions for
 * them are carried out together. Untouched blocks it places on the device
 * get their slots and zero fills in one copy-engine submission per
 * UVAS_PLACE_MAX blocks; host-resident ones it moves go through the
 * migration engine a run of consecutive blocks at a time. uvas_device_take
 * pays a submission and a wait per block. Best effort: a block another
 * agent has, or whose move failed, is left to uvas_device_take, which
 * reports. prep[i] says what was done for bi[i]; the policy's answer
 * holds for the launch (holds retried after a busy block keep it). Only
 * as many blocks as the tier has room for are moved: the rest are moved
 * and held one at a time, so the set's blocks never evict each other.
 */
void uvas_device_prepare(const size_t *bi, size_t n, uint8_t *prep);

void uvas_device_access_fini(void);

#endif
