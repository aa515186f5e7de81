/*
 * The sides of a transfer (dispatch.c and owner.c): where the bytes of one
 * block-sized piece are, found by pinning the block's gate (ours or a
 * peer's) and reading its residence, and how to move bytes between two
 * such sides. A pin is held from acquiring a side to dropping it; while it
 * is, nothing may fault on the range or wait on UCX (dispatch.c says why).
 */
#ifndef UVAS_PE_SIDE_H
#define UVAS_PE_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/pe/devpeer.h"
#include "transport/pe/job.h"
#include "uvas/gate.h"
#include "uvas/internal.h"

enum uvas_side_kind { UVAS_SIDE_SLOW = 0, UVAS_SIDE_HOST, UVAS_SIDE_DEV, UVAS_SIDE_ZERO };

struct uvas_side {
    enum uvas_side_kind kind;
    char *ptr;                /* UVAS_SIDE_HOST */
    struct uvas_devref dev;   /* UVAS_SIDE_DEV: the block's memory */
    size_t off;               /* UVAS_SIDE_DEV: offset in the block */
    struct uvas_gate_quick pin; /* held on this block (a slot or a counter), or neither */
    bool peer;                /* another PE's memory: a put there may stream */
};

static inline size_t uvas_side_block_off(const void *a)
{
    return ((uintptr_t)a - (uintptr_t)uvas_g.base) & (uvas_g.block_size - 1);
}

static inline bool uvas_side_pinned(const struct uvas_side *s)
{
    return s->pin.slot || s->pin.ctr;
}

static inline void uvas_side_drop(struct uvas_side *s)
{
    if (uvas_side_pinned(s))
        uvas_gate_unpin_quick(&s->pin);
    s->pin = (struct uvas_gate_quick){0};
}

/* Are message puts to p still unacknowledged (dispatch.c: ordering)? */
static inline bool uvas_side_am_behind(struct uvas_peer *p)
{
    return atomic_load_explicit(&p->am_puts, memory_order_acquire) != 0;
}

/* A side in our own range (or plain local memory outside it). */
void uvas_side_own(const void *addr, bool write, struct uvas_side *s);
/* The target side at a peer whose windows we hold. */
void uvas_side_peer(struct uvas_peer *p, const void *addr, struct uvas_side *s);
/* The side of addr at PE pe: our own, a local peer's window, or (another
 * node) UVAS_SIDE_SLOW with no pin. */
void uvas_side_at(int pe, const void *addr, bool write, struct uvas_side *s);
/* Move n bytes from a fast side to a fast side; *path: the path taken. */
int uvas_side_transfer(struct uvas_side *d, struct uvas_side *s, size_t n, int *path);
/* Copy a fast side into plain memory and drop its pin. */
int uvas_side_materialize(struct uvas_side *s, void *buf, size_t n);
/* Bytes from a to the end of its block, capped at n. */
size_t uvas_side_room(const void *a, size_t n);

#endif
