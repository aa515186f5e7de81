/*
 * Gates: one 64-bit word per block, in a memfd the PEs of a node map, that
 * lets a peer access the block's memory directly without racing a
 * migration. The owner publishes the block's residence in the word; a
 * peer adds a pin (one atomic that also returns the residence), accesses
 * the memory only if the gate was open, and drops the pin. An owner's
 * transition closes the gate and waits until no pin is held before it
 * unmaps or copies anything (Dekker: both sides write, then read, the same
 * word). Over UCX the same word is the target of remote atomics.
 *
 * word: bits 0-19 pins, bit 20 CLOSED, bits 21-22 residence, bit 23
 * DIRECT (device memory a peer may write: a slab slot, no host duplicate),
 * bits 32-63 device slot.
 */
#ifndef UVAS_GATE_H
#define UVAS_GATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UVAS_GATE_PIN 1ull
#define UVAS_GATE_PINS 0xfffffull
#define UVAS_GATE_CLOSED (1ull << 20)
#define UVAS_GATE_RES_SHIFT 21
#define UVAS_GATE_DIRECT (1ull << 23)
#define UVAS_GATE_SLOT_SHIFT 32

static inline int uvas_gate_res(uint64_t w)
{
    return (int)((w >> UVAS_GATE_RES_SHIFT) & 3u);
}
static inline uint32_t uvas_gate_slot(uint64_t w)
{
    return (uint32_t)(w >> UVAS_GATE_SLOT_SHIFT);
}
static inline bool uvas_gate_is_open(uint64_t w)
{
    return !(w & UVAS_GATE_CLOSED);
}

/* The gate table (a memfd of nblocks words, mapped shared). Status. */
int uvas_gate_table_create(size_t nblocks, int *fd, _Atomic uint64_t **out);
void uvas_gate_table_destroy(_Atomic uint64_t *g, size_t nblocks, int fd);

/* A pin on a gate word, local or in a peer's table: the word as it was.
 * The access may go ahead only if uvas_gate_is_open(w); either way the
 * pin must be dropped. */
static inline uint64_t uvas_gate_pin(_Atomic uint64_t *g)
{
    return atomic_fetch_add_explicit(g, UVAS_GATE_PIN, memory_order_seq_cst);
}
static inline void uvas_gate_unpin(_Atomic uint64_t *g)
{
    /* seq_cst: the PE layer's quiet relies on it ordering the access's
     * stores before anything after (a locked instruction on x86). */
    atomic_fetch_sub_explicit(g, UVAS_GATE_PIN, memory_order_seq_cst);
}

/* Called when a transition has waited long for pins (a dead peer?); the
 * transport installs a check that ends the job if a peer is gone. */
extern void (*uvas_gate_stuck_hook)(size_t block, double seconds);
/* Transitions that had to wait for pins (statistics). */
uint64_t uvas_gate_waits(void);

#endif
