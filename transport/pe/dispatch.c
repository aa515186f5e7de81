/*
 * RMA dispatch by residence. An operation is cut where either side crosses
 * a block boundary; for each piece the target's gate is pinned (which also
 * says where the block lives) and, for a source or destination inside our
 * own range, our own gate too. Then:
 *
 *   target host,   local host    store/load through the peer's window   CPU->CPU
 *   target device, local host    copy engine into the imported slab     CPU->GPU
 *                                (or a store through its mapping, small)
 *   target host,   local device  copy engine out of our slot            GPU->CPU
 *   target device, local device  copy engine slot to slot               GPU->GPU
 *   anything else                active message to the owner            AM
 *
 * Ordering: puts from this PE to another land in the order they were
 * issued (stronger than OpenSHMEM, which asks for shmem_fence). Direct
 * paths complete before they return, active-message puts only when the
 * owner acknowledges them, and the owner may open a gate (its fault path
 * filling the block) before it stores the message's data. So while any of
 * our message puts to a PE is unacknowledged, every access to that PE goes
 * by message too: one channel, served in order. (Waiting for the acks
 * instead would serialize streams of message puts.)
 *
 * Rules that keep this deadlock-free: while a pin is held nothing may
 * fault on the range (our own side is read and written through the host
 * alias, which has no userfaultfd) and nothing may wait on UCX (a handler
 * of the progress thread may itself be waiting for that pin to drain).
 * So data bound for an active message or for the fault path is first
 * copied to a bounce buffer and every pin dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "transport/pe/am.h"
#include "transport/pe/devpeer.h"
#include "transport/pe/job.h"
#include "transport/pe/owner.h"
#include "transport/pe/segment.h"
#include "transport/pe/side.h"
#include "transport/pe/ucx.h"
#include "transport/pe/ucx_sym.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/span.h"
#include "uvas/status.h"

/* ---- UCX: gated RMA on the peer's host alias --------------------------------- */

/* A pin on p's block holding addr, in the pin table p keeps for remote
 * peers: +1 waits until the add is done at p (the gate is read after it),
 * -1 is posted (the flush before it put the data in place). */
static int ucx_pin(struct uvas_peer *p, const void *addr, int delta)
{
    static const uint32_t minus = UINT32_MAX, plus = 1;
    uint32_t old;
    ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                              .datatype = ucp_dt_make_contig(4)};
    if (delta > 0) {
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        rp.reply_buffer = &old;
    }
    uint64_t raddr = p->pins_raddr + uvas_block_index(addr) * sizeof(uint32_t);
    void *r = ucp_atomic_op_nbx(p->ep, UCP_ATOMIC_OP_ADD, delta > 0 ? &plus : &minus, 1, raddr,
                                p->rkey_pins, &rp);
    if (delta > 0)
        return uvas_ucx_wait(r, "pin (remote atomic)");
    if (UCS_PTR_IS_PTR(r))
        ucp_request_free(r); /* completes in order after the flush */
    return UCS_PTR_IS_ERR(r) ? uvas_fail(UVAS_ERR_SYS, "UCX pin release failed") : UVAS_OK;
}

/* One access of ours to p's block holding addr, where p counts them
 * (UVAS_POLICY_TRACK_PEERS, UVAS_PEER_COUNTS): posted, as the pin's
 * release, so no round trip is added to the call; a flush (the put's
 * own, or the next quiet's) lands it. true when posted. */
static bool ucx_count(struct uvas_peer *p, const void *addr)
{
    static const uint32_t one = 1;
    if (!p->acc_raddr)
        return false;
    ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                              .datatype = ucp_dt_make_contig(4)};
    uint64_t raddr = p->acc_raddr + uvas_block_index(addr) * sizeof(uint32_t);
    void *r = ucp_atomic_op_nbx(p->ep, UCP_ATOMIC_OP_ADD, &one, 1, raddr, p->rkey_pins, &rp);
    if (UCS_PTR_IS_PTR(r))
        ucp_request_free(r); /* its completion is the flush's */
    return !UCS_PTR_IS_ERR(r);
}

/* p's residence word of the block holding addr (read-only to us). */
static int ucx_gate_word(struct uvas_peer *p, const void *addr, uint64_t *w)
{
    ucp_request_param_t rp = {0};
    uint64_t raddr = p->gates_raddr + uvas_block_index(addr) * sizeof(uint64_t);
    return uvas_ucx_wait(ucp_get_nbx(p->ep, w, sizeof *w, raddr, p->rkey_gates, &rp),
                         "residence read");
}

/* A put or get over ucp RMA if the block is host-resident at p (1), else
 * 0 (the caller takes the active message path). */
static int ucx_rma(struct uvas_peer *p, void *remote, void *local, size_t n, bool put)
{
    if (!p->alias_raddr || uvas_side_am_behind(p))
        return 0;
    uint64_t w = 0;
    int rc = ucx_pin(p, remote, 1);
    if (rc)
        return rc;
    rc = ucx_gate_word(p, remote, &w);
    if (rc || !uvas_gate_is_open(w) || uvas_gate_res(w) != UVAS_RES_HOST) {
        int rc2 = ucx_pin(p, remote, -1);
        return rc ? rc : rc2 ? rc2 : 0;
    }
    ucp_request_param_t rp = {0};
    uint64_t raddr = p->alias_raddr + (uint64_t)((char *)remote - uvas_g.base);
    void *r = put ? ucp_put_nbx(p->ep, local, n, raddr, p->rkey_range, &rp)
                  : ucp_get_nbx(p->ep, local, n, raddr, p->rkey_range, &rp);
    rc = uvas_ucx_wait(r, put ? "put" : "get");
    bool counted = rc == UVAS_OK && ucx_count(p, remote);
    if (put && rc == UVAS_OK)
        rc = uvas_ucx_flush(); /* the data (and the count) in place before the pin goes */
    else if (counted)
        atomic_store_explicit(&uvas_job.ucx_counts_posted, true, memory_order_relaxed);
    int rc2 = ucx_pin(p, remote, -1);
    if (rc == UVAS_OK && rc2 == UVAS_OK)
        uvas_job_count(UVAS_PATH_UCX_RMA, n);
    return rc ? rc : rc2 ? rc2 : 1;
}

/* The walker's bounce buffer, at least n bytes. false (buffer unchanged)
 * when memory runs out. */
static bool bounce_fit(void **bounce, size_t *bsize, size_t n)
{
    if (*bsize >= n)
        return true;
    void *b = realloc(*bounce, n);
    if (!b)
        return false;
    *bounce = b;
    *bsize = n;
    return true;
}

/* ---- cutting at blocks ------------------------------------------------------ */

typedef int (*piece_fn)(int pe, char *dest, const char *src, size_t n, void **bounce,
                        size_t *bsize);

/* Cut [dest, +n) and [src, +n) wherever either crosses a block and move each
 * piece with fn, sharing one bounce buffer. */
static int walk(piece_fn fn, int pe, char *d, const char *s, size_t n, const char *what,
                const void *at)
{
    void *bounce = NULL;
    size_t bsize = 0;
    int rc = UVAS_OK;
    while (n && rc == UVAS_OK) {
        size_t k = uvas_side_room(d, n);
        k = uvas_side_room(s, k);
        rc = fn(pe, d, s, k, &bounce, &bsize);
        d += k;
        s += k;
        n -= k;
    }
    free(bounce);
    return rc ? uvas_fail(rc, "%s PE %d at %p failed: %s", what, pe, at,
                          *uvas_last_error() ? uvas_last_error() : uvas_strerror(rc))
              : UVAS_OK;
}

/* ---- put --------------------------------------------------------------------- */

/* One piece to a target that needs the slow path: plain source, no pins. */
/* The ways that need no window: this PE's own range (the owner's code),
 * UCX RMA on a registered host block of a remote peer, or an active
 * message that the owner applies. plain: local memory that does not move. */
static int slow(int pe, bool put, char *remote, void *plain, size_t n)
{
    if (pe == uvas_job.me) {
        uvas_job_count(UVAS_PATH_LOCAL, n);
        return put ? uvas_owner_write(remote, plain, n) : uvas_owner_read(plain, remote, n);
    }
    struct uvas_peer *p = &uvas_job.peers[pe];
    if (!p->local && n >= uvas_job.ucx_rma_min) {
        int rc = ucx_rma(p, remote, plain, n, put);
        if (rc != 0)
            return rc < 0 ? rc : UVAS_OK;
    }
    return put ? uvas_am_put(pe, remote, plain, n) : uvas_am_get(pe, plain, remote, n);
}

static int put_piece(int pe, char *dest, const char *src, size_t n, void **bounce,
                     size_t *bsize)
{
    struct uvas_side s, d;
    uvas_side_own(src, false, &s);
    if (s.kind == UVAS_SIDE_SLOW) { /* through the range, no pins held */
        if (!bounce_fit(bounce, bsize, n))
            return UVAS_ERR_NOMEM;
        int rc = uvas_owner_read(*bounce, src, n);
        if (rc)
            return rc;
        s = (struct uvas_side){.kind = UVAS_SIDE_HOST, .ptr = *bounce};
    }
    uvas_side_at(pe, dest, true, &d);
    if (d.kind != UVAS_SIDE_SLOW) {
        int path;
        int rc = uvas_side_transfer(&d, &s, n, &path);
        uvas_side_drop(&d);
        uvas_side_drop(&s);
        if (rc == UVAS_OK)
            uvas_job_count(pe == uvas_job.me ? UVAS_PATH_LOCAL : path, n);
        return rc;
    }
    const void *plain = s.ptr;
    if (uvas_side_pinned(&s) || s.kind != UVAS_SIDE_HOST) {
        if (!bounce_fit(bounce, bsize, n)) {
            uvas_side_drop(&s);
            return UVAS_ERR_NOMEM;
        }
        int rc = uvas_side_materialize(&s, *bounce, n);
        if (rc)
            return rc;
        plain = *bounce;
    }
    return slow(pe, true, dest, (void *)plain, n);
}

/* Small transfers copy our side through the range on a stack buffer: a
 * fault there happens with no pin held, and one pin (the target's) is
 * cheaper than two. */
#define SMALL 1024

/* Up to 64 bytes copied as a head and a tail of a fixed size each
 * (overlapping when n is not twice that size): inlined moves, no call, and
 * the source is read before the target is pinned. */
#define TINY 64

struct tiny {
    uint64_t v[8];
};

static inline struct tiny tiny_load(const void *src, size_t n)
{
    struct tiny t;
    const char *s = src;
    if (n > 32) {
        memcpy(t.v, s, 32);
        memcpy(t.v + 4, s + n - 32, 32);
    } else if (n > 16) {
        memcpy(t.v, s, 16);
        memcpy(t.v + 2, s + n - 16, 16);
    } else if (n >= 8) {
        memcpy(t.v, s, 8);
        memcpy(t.v + 1, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(t.v, s, 4);
        memcpy((char *)t.v + 4, s + n - 4, 4);
    } else {
        memcpy(t.v, s, n);
    }
    return t;
}

static inline void tiny_store(void *dest, const struct tiny *t, size_t n)
{
    char *d = dest;
    if (n > 32) {
        memcpy(d, t->v, 32);
        memcpy(d + n - 32, t->v + 4, 32);
    } else if (n > 16) {
        memcpy(d, t->v, 16);
        memcpy(d + n - 16, t->v + 2, 16);
    } else if (n >= 8) {
        memcpy(d, t->v, 8);
        memcpy(d + n - 8, t->v + 1, 8);
    } else if (n >= 4) {
        memcpy(d, t->v, 4);
        memcpy(d + n - 4, (const char *)t->v + 4, 4);
    } else {
        memcpy(d, t->v, n);
    }
}

static bool small_put(struct uvas_peer *p, char *dest, const void *src, size_t n)
{
    unsigned char buf[SMALL];
    if (uvas_side_am_behind(p))
        return false;
    struct tiny t;
    if (n <= TINY)
        t = tiny_load(src, n);
    else
        memcpy(buf, src, n);
    size_t bi = uvas_block_index(dest);
    struct uvas_gate_quick q;
    uint64_t w = uvas_gate_pin_quick(p->slots, p->pins, bi, &p->gates[bi], &q);
    if (uvas_gate_is_open(w) && uvas_gate_res(w) == UVAS_RES_HOST) {
        if (n <= TINY)
            tiny_store(p->win + (dest - uvas_g.base), &t, n);
        else
            memcpy(p->win + (dest - uvas_g.base), buf, n);
        uvas_gate_unpin_quick(&q);
        uvas_gate_count_if(p->slots, p->acc, bi);
        uvas_job_count(UVAS_PATH_CPU_CPU, n);
        return true;
    }
    uvas_gate_unpin_quick(&q);
    return false;
}

static bool small_get(struct uvas_peer *p, void *dest, const char *src, size_t n)
{
    unsigned char buf[SMALL];
    if (uvas_side_am_behind(p))
        return false;
    size_t bi = uvas_block_index(src);
    struct uvas_gate_quick q;
    uint64_t w = uvas_gate_pin_quick(p->slots, p->pins, bi, &p->gates[bi], &q);
    if (uvas_gate_is_open(w) && uvas_gate_res(w) == UVAS_RES_HOST) {
        memcpy(buf, p->win + (src - uvas_g.base), n);
        uvas_gate_unpin_quick(&q);
        uvas_gate_count_if(p->slots, p->acc, bi);
        memcpy(dest, buf, n);
        uvas_job_count(UVAS_PATH_CPU_CPU, n);
        return true;
    }
    uvas_gate_unpin_quick(&q);
    return false;
}

static inline bool one_block(const void *a, size_t n)
{
    return uvas_side_block_off(a) + n <= uvas_g.block_size;
}

/* May our side be touched with the CPU without moving it? Outside the
 * range, or in a host-resident block. (A migration racing this check
 * makes the CPU access fault and bring the block back: correct, only
 * slower.) A device-resident side takes the copy-engine paths instead. */
static inline bool cpu_side(const void *a)
{
    return !uvas_in_range(a) ||
           uvas_blk_res(atomic_load_explicit(&uvas_g.bt[uvas_block_index(a)].state,
                                             memory_order_relaxed)) == UVAS_RES_HOST;
}

/* ---- the program's globals (segment.h) ------------------------------------- */

/* This PE's own globals are plain memory; a peer's are reached by active
 * message, named by their offset in the segment, or as below. */

/* A peer's global by cross-memory attach: faster than a message for gets
 * and larger puts on one node where the kernel allows it (globals-bench;
 * docs/transport.md). Not while this PE has message puts to the peer in
 * flight (they would be overtaken). false: go by message (a refusal is
 * remembered, and messages carry everything to that peer from then on). */
static bool seg_cma(int pe, void *local, uint64_t off, size_t n, bool write)
{
    struct uvas_peer *p = &uvas_job.peers[pe];
    struct uvas_peer_segs *g = &uvas_job.peer_segs[pe];
    if (!uvas_job.seg_cma || !p->local || atomic_load(&g->cma) < 0 ||
        atomic_load_explicit(&p->am_puts, memory_order_acquire))
        return false;
    uint64_t key = uvas_seg_key_of(off), in = uvas_seg_inner(off);
    int i = 0;
    while (i < g->n && g->key[i] != key)
        i++;
    if (i == g->n || in >= g->size[i] || n > g->size[i] - in)
        return false; /* the owner refuses it, by message, with its reason */
    int rc = write ? uvas_os_peer_write(p->pid, local, g->lo[i] + in, n)
                   : uvas_os_peer_read(p->pid, local, g->lo[i] + in, n);
    if (rc != UVAS_OK) {
        atomic_store(&g->cma, -1);
        uvas_clear_error();
        return false;
    }
    atomic_store(&g->cma, 1);
    uvas_job_count(UVAS_PATH_CMA, n);
    return true;
}

static int seg_put(void *dest, const void *src, size_t n, int pe)
{
    if (pe != uvas_job.me && n >= uvas_job.seg_cma_put_min &&
        seg_cma(pe, (void *)src, uvas_seg_offset(dest), n, true))
        return UVAS_OK;
    if (pe != uvas_job.me)
        return uvas_am_seg_put(pe, uvas_seg_offset(dest), src, n);
    memmove(dest, src, n);
    uvas_job_count(UVAS_PATH_LOCAL, n);
    return UVAS_OK;
}

static int seg_get(void *dest, const void *src, size_t n, int pe)
{
    if (pe != uvas_job.me && seg_cma(pe, dest, uvas_seg_offset(src), n, false))
        return UVAS_OK;
    if (pe != uvas_job.me)
        return uvas_am_seg_get(pe, dest, uvas_seg_offset(src), n);
    memmove(dest, src, n);
    uvas_job_count(UVAS_PATH_LOCAL, n);
    return UVAS_OK;
}

/* A small move within this PE's memory, both sides where the CPU may touch
 * them (cpu_side): a plain move, as the program's own loads and stores
 * would make (a migration racing the check makes the access fault and
 * wait for it: correct, only slower). The collectives read and write
 * their own staged and symmetric memory this way. */
static bool local_move(void *dest, const void *src, size_t n)
{
    if (n > SMALL || (uvas_in_range(dest) && !one_block(dest, n)) ||
        (uvas_in_range(src) && !one_block(src, n)) || !cpu_side(dest) || !cpu_side(src))
        return false;
    memmove(dest, src, n);
    uvas_job_count(UVAS_PATH_LOCAL, n);
    return true;
}

bool uvas_pe_put_quick(void *dest, const void *src, size_t n, int pe)
{
    /* What uvas_pe_check would accept, then uvas_pe_put's first path. */
    return n && n <= TINY && uvas_job.up && pe >= 0 && pe < uvas_job.n && pe != uvas_job.me &&
           uvas_job.peers[pe].local && uvas_in_range(dest) && uvas_span_covers(dest, n) &&
           one_block(dest, n) && cpu_side(src) && small_put(&uvas_job.peers[pe], dest, src, n);
}

int uvas_pe_put(void *dest, const void *src, size_t n, int pe, bool nbi)
{
    (void)nbi; /* every path completes the local side before it returns */
    if (!uvas_in_range(dest) && uvas_seg_has(dest, n))
        return seg_put(dest, src, n, pe);
    if (pe == uvas_job.me && local_move(dest, src, n))
        return UVAS_OK;
    if (n <= SMALL && pe != uvas_job.me && uvas_job.peers[pe].local && one_block(dest, n) &&
        cpu_side(src) && small_put(&uvas_job.peers[pe], dest, src, n))
        return UVAS_OK;
    return walk(put_piece, pe, dest, src, n, "put to", dest);
}

/* ---- get --------------------------------------------------------------------- */

static int get_piece(int pe, char *dest, const char *src, size_t n, void **bounce,
                     size_t *bsize)
{
    struct uvas_side s, d;
    uvas_side_at(pe, src, false, &s);
    if (s.kind != UVAS_SIDE_SLOW) {
        uvas_side_own(dest, true, &d);
        if (d.kind != UVAS_SIDE_SLOW) {
            int path;
            int rc = uvas_side_transfer(&d, &s, n, &path);
            uvas_side_drop(&d);
            uvas_side_drop(&s);
            if (rc == UVAS_OK)
                uvas_job_count(pe == uvas_job.me ? UVAS_PATH_LOCAL : path, n);
            return rc;
        }
    }
    /* Fetch into plain memory with no pins, then place it. */
    if (!bounce_fit(bounce, bsize, n)) {
        uvas_side_drop(&s);
        return UVAS_ERR_NOMEM;
    }
    int rc = s.kind != UVAS_SIDE_SLOW ? uvas_side_materialize(&s, *bounce, n) : slow(pe, false, (char *)src, *bounce, n);
    if (rc == UVAS_OK && s.kind != UVAS_SIDE_SLOW)
        uvas_job_count(pe == uvas_job.me ? UVAS_PATH_LOCAL : UVAS_PATH_CPU_CPU, n);
    if (rc == UVAS_OK)
        rc = uvas_in_range(dest) ? uvas_owner_write(dest, *bounce, n)
                                 : (memcpy(dest, *bounce, n), UVAS_OK);
    return rc;
}

int uvas_pe_get(void *dest, const void *src, size_t n, int pe, bool nbi)
{
    (void)nbi;
    if (!uvas_in_range(src) && uvas_seg_has(src, n))
        return seg_get(dest, src, n, pe);
    if (pe == uvas_job.me && local_move(dest, src, n))
        return UVAS_OK;
    if (n <= SMALL && pe != uvas_job.me && uvas_job.peers[pe].local && one_block(src, n) &&
        cpu_side(dest) && small_get(&uvas_job.peers[pe], dest, src, n))
        return UVAS_OK;
    return walk(get_piece, pe, dest, src, n, "get from", src);
}

/* ---- atomics ------------------------------------------------------------------ */

int uvas_pe_amo(enum uvas_amo_op op, void *target, size_t width, uint64_t operand,
                uint64_t compare, uint64_t *fetched, int pe)
{
    if ((width != 4 && width != 8) || ((uintptr_t)target & (width - 1)) ||
        (unsigned)op >= UVAS_AMO_COUNT)
        return uvas_fail(UVAS_ERR_INVAL, "atomic on %p: width %zu or operation %d is not "
                         "supported (4 or 8 bytes, naturally aligned)", target, width, (int)op);
    if (!uvas_in_range(target) && uvas_seg_has(target, width)) {
        if (pe != uvas_job.me)
            return uvas_am_seg_amo(pe, op, uvas_seg_offset(target), width, operand, compare,
                                   fetched);
        uint64_t old = uvas_amo_apply(op, target, width, operand, compare);
        if (fetched)
            *fetched = old;
        uvas_job_count(UVAS_PATH_LOCAL, width);
        return UVAS_OK;
    }
    if (pe == uvas_job.me) {
        uvas_job_count(UVAS_PATH_LOCAL, width);
        return uvas_owner_amo(op, target, width, operand, compare, fetched);
    }
    struct uvas_peer *p = &uvas_job.peers[pe];
    if (p->local && !uvas_side_am_behind(p)) {
        size_t bi = uvas_block_index(target);
        struct uvas_gate_quick q;
        uint64_t w = uvas_gate_pin_quick(p->slots, p->pins, bi, &p->gates[bi], &q);
        if (uvas_gate_is_open(w) && uvas_gate_res(w) == UVAS_RES_HOST) {
            uint64_t old = uvas_amo_apply(op, p->win + ((char *)target - uvas_g.base), width,
                                          operand, compare);
            uvas_gate_unpin_quick(&q);
            uvas_gate_count_if(p->slots, p->acc, bi);
            if (fetched)
                *fetched = old;
            uvas_job_count(UVAS_PATH_CPU_CPU, width);
            return UVAS_OK;
        }
        uvas_gate_unpin_quick(&q);
    }
    return uvas_am_amo(pe, op, target, width, operand, compare, fetched);
}
