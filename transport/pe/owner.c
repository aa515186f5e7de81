/*
 * This PE applying an access to its own range, for a peer's active message
 * or for an operation whose target is this PE. Where the block is held
 * open (pinned) at the host, through the host alias, which never faults;
 * at the device, through the copy engine, so a peer's put does not pull
 * the block back to the CPU; otherwise through the range itself, where
 * the fault path and this PE's policy decide (an untouched block is placed
 * by them).
 */
#include "transport/pe/owner.h"

#include <sched.h>
#include <string.h>
#include <time.h>

#include "transport/pe/job.h"
#include "transport/pe/side.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"

uint64_t uvas_amo_apply(enum uvas_amo_op op, void *t, size_t width, uint64_t v, uint64_t cmp)
{
#define AMO_CASES(T)                                                                          \
    do {                                                                                      \
        T *p = t, x = (T)v, c = (T)cmp;                                                       \
        switch (op) {                                                                         \
        case UVAS_AMO_FETCH: return (uint64_t)__atomic_load_n(p, __ATOMIC_SEQ_CST);            \
        case UVAS_AMO_SET: __atomic_store_n(p, x, __ATOMIC_SEQ_CST); return 0;                 \
        case UVAS_AMO_SWAP: return (uint64_t)__atomic_exchange_n(p, x, __ATOMIC_SEQ_CST);      \
        case UVAS_AMO_CSWAP:                                                                  \
            __atomic_compare_exchange_n(p, &c, x, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);  \
            return (uint64_t)c;                                                               \
        case UVAS_AMO_ADD: return (uint64_t)__atomic_fetch_add(p, x, __ATOMIC_SEQ_CST);        \
        case UVAS_AMO_AND: return (uint64_t)__atomic_fetch_and(p, x, __ATOMIC_SEQ_CST);        \
        case UVAS_AMO_OR: return (uint64_t)__atomic_fetch_or(p, x, __ATOMIC_SEQ_CST);          \
        case UVAS_AMO_XOR: return (uint64_t)__atomic_fetch_xor(p, x, __ATOMIC_SEQ_CST);        \
        default: return 0;                                                                    \
        }                                                                                     \
    } while (0)
    if (width == 4)
        AMO_CASES(uint32_t);
    AMO_CASES(uint64_t);
#undef AMO_CASES
}

/* A transition (its gate closed) ends in microseconds to milliseconds;
 * past this the access goes through the range regardless. */
#define SETTLE_NS 1000000000ull

/* The side of this PE's block for its own access. While a transition has
 * the block (gate closed) it waits for the gate to open rather than fault
 * through the range at once: the fault could then wait for the holds a
 * kernel of ours took meanwhile, for as long as the kernel runs, and this
 * thread may be the progress thread, inside UCX, which the kernel's
 * launcher needs to serve the kernel's requests (a deadlock seen on 4 PEs
 * on lavapipe). A held device-resident block's gate is open: its side is
 * the copy engine's. SLOW: through the range (an untouched block written,
 * a block mapped for the CPU, a transition that outlasted SETTLE_NS). */
static void own_side(const char *addr, bool write, struct uvas_side *d)
{
    size_t bi = uvas_block_index(addr);
    uint64_t t0 = 0;
    for (unsigned i = 0;; i++) {
        uvas_side_own(addr, write, d);
        if (d->kind != UVAS_SIDE_SLOW || !uvas_g.gates || !uvas_in_range(addr) ||
            uvas_gate_is_open(atomic_load_explicit(&uvas_g.gates[bi], memory_order_acquire)))
            return;
        if (i < 64)
            continue;
        if (!t0)
            t0 = uvas_os_now_ns();
        else if (uvas_os_now_ns() - t0 > SETTLE_NS)
            return;
        sched_yield();
    }
}

/* One piece within a block: where the block is held open, by the sides
 * dispatch uses (side.h); otherwise through the range, where the fault
 * path and the policy place or move the block. */
static int write_piece(char *addr, const void *src, size_t n)
{
    struct uvas_side d, s = {.kind = UVAS_SIDE_HOST, .ptr = (char *)src};
    own_side(addr, true, &d);
    if (d.kind != UVAS_SIDE_SLOW) {
        int path;
        int rc = uvas_side_transfer(&d, &s, n, &path);
        uvas_side_drop(&d);
        return rc;
    }
    memcpy(addr, src, n); /* faults: the policy places or moves the block */
    return UVAS_OK;
}

static int read_piece(void *dst, const char *addr, size_t n)
{
    struct uvas_side s, d = {.kind = UVAS_SIDE_HOST, .ptr = dst};
    own_side(addr, false, &s);
    if (s.kind != UVAS_SIDE_SLOW) {
        int path;
        int rc = uvas_side_transfer(&d, &s, n, &path);
        uvas_side_drop(&s);
        return rc;
    }
    memcpy(dst, addr, n);
    return UVAS_OK;
}

static size_t piece_len(const char *addr, size_t n)
{
    size_t room = uvas_g.block_size - ((size_t)(addr - uvas_g.base) & (uvas_g.block_size - 1));
    return n < room ? n : room;
}

int uvas_owner_write(char *addr, const void *src, size_t n)
{
    if (!uvas_in_range(addr) || (size_t)(uvas_g.base + uvas_g.size - addr) < n)
        return uvas_fail(UVAS_ERR_NOT_OWNED, "address %p is outside the symmetric range",
                         (void *)addr);
    const char *s = src;
    while (n) {
        size_t k = piece_len(addr, n);
        int rc = write_piece(addr, s, k);
        if (rc)
            return rc;
        addr += k;
        s += k;
        n -= k;
    }
    return UVAS_OK;
}

int uvas_owner_read(void *dst, const char *addr, size_t n)
{
    if (!uvas_in_range(addr) || (size_t)(uvas_g.base + uvas_g.size - addr) < n)
        return uvas_fail(UVAS_ERR_NOT_OWNED, "address %p is outside the symmetric range",
                         (const void *)addr);
    char *d = dst;
    while (n) {
        size_t k = piece_len(addr, n);
        int rc = read_piece(d, addr, k);
        if (rc)
            return rc;
        addr += k;
        d += k;
        n -= k;
    }
    return UVAS_OK;
}

int uvas_owner_amo(enum uvas_amo_op op, void *target, size_t width, uint64_t operand,
                   uint64_t compare, uint64_t *fetched)
{
    /* width and op may come from a peer's message: check both. */
    if ((width != 4 && width != 8) || (unsigned)op >= UVAS_AMO_COUNT)
        return uvas_fail(UVAS_ERR_INVAL, "atomic of width %zu / operation %d: only 4 or 8 "
                         "bytes and the UVAS_AMO_* operations", width, (int)op);
    if (!uvas_in_range(target) || ((uintptr_t)target & (width - 1)))
        return uvas_fail(UVAS_ERR_INVAL, "atomic target %p is outside the range or not "
                         "%zu-byte aligned", target, width);
    /* Host-resident and held open: on the host page itself, as peers'
     * direct atomics are. Elsewhere through the range: a device-resident
     * block comes back to (or is mapped for) the CPU, which is where
     * atomics of every path meet. */
    struct uvas_side t;
    own_side(target, true, &t);
    uint64_t old;
    if (t.kind == UVAS_SIDE_HOST) {
        old = uvas_amo_apply(op, t.ptr, width, operand, compare);
        uvas_side_drop(&t);
    } else {
        uvas_side_drop(&t); /* no pin may be held where the range can fault */
        old = uvas_amo_apply(op, target, width, operand, compare);
    }
    if (fetched)
        *fetched = old;
    return UVAS_OK;
}
