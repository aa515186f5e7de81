/*
 * The symmetric allocator. Deterministic by construction: first fit over
 * block runs sorted by address, lowest free slot in a slab, no per-thread
 * caches and no randomisation, so the same sequence of calls returns the
 * same addresses in every process that uses the same options (symmetry,
 * guarantee 1). One lock: allocation is not the hot path; faults and
 * queries never take it.
 *
 * Allocations of at most an eighth of a block share blocks in slabs of one
 * heap kind (so a hinted object never shares a block, and so a residence,
 * with an object of another hint); larger ones get whole blocks.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "uvas/alloc.h"
#include "uvas/atomics.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/span.h"
#include "uvas/status.h"
#include "uvas/tier.h"

static struct uvas_alloc_hooks lent;

void uvas_alloc_lend(const struct uvas_alloc_hooks *hooks)
{
    lent = hooks ? *hooks : (struct uvas_alloc_hooks){0};
}

static int heap_of(unsigned hints)
{
    if (hints & UVAS_HINT_HOST)
        return UVAS_HEAP_HOST;
    if (hints & UVAS_HINT_DEVICE)
        return UVAS_HEAP_DEVICE;
    return UVAS_HEAP_UNIFIED;
}

/* Blocks [s, s+n) now belong to the allocation whose first block is head
 * (a slab block: each its own). In eager mode nothing will
 * intercept their first touch, so they are placed now. */
static void assign_blocks(size_t head, size_t s, size_t n, int heap, unsigned hints, int kind)
{
    for (size_t i = s; i < s + n; i++) {
        struct uvas_block *b = &uvas_g.bt[i];
        atomic_store_explicit(&b->heap, (uint8_t)heap, RLX);
        atomic_store_explicit(&b->hints, (uint8_t)hints, RLX);
        b->flags = 0;
        atomic_store_explicit(&b->kind, (uint8_t)kind, RLX);
        atomic_store_explicit(&b->owner, (uint32_t)(kind == UVAS_BK_SLAB ? i : head) + 1, REL);
        if (uvas_g.fault_mode != UVAS_FAULT_EAGER)
            continue;
        uint32_t seen;
        if (!uvas_blk_try_busy(b, UVAS_RES_UNPOPULATED, &seen))
            continue;
        int res = lent.place ? lent.place(i) : UVAS_RES_HOST;
        uvas_blk_publish(b, seen, res);
        uvas_stats_block_in(res, 0);
    }
}

/* Take a block for release, waiting out a transition in flight (a fault
 * being served takes microseconds). Returns its residence. */
static int take_for_release(struct uvas_block *b, uint32_t *seen)
{
    uvas_blk_take(b, true, seen);
    return uvas_blk_res(*seen);
}

/* What a block learned under its last owner goes with it (held BUSY):
 * advice, preferred location, access and migration counts; its
 * generation says so to the policies (a tick's policy keeps per-block
 * memory, which a reuse with counts from 0 and no move would have kept).
 * The tiers' release already dropped device copies, duplicates and CPU
 * views. */
static void forget_block(struct uvas_block *b)
{
    atomic_store_explicit(&b->advice, 0, RLX);
    atomic_store_explicit(&b->tier_pref, 0, RLX);
    atomic_store_explicit(&b->acc[0], 0, RLX);
    atomic_store_explicit(&b->acc[1], 0, RLX);
    atomic_store_explicit(&b->gpu_acc, 0, RLX);
    atomic_store_explicit(&b->moves, 0, RLX);
    atomic_store_explicit(&b->writes, 0, RLX);
    atomic_store_explicit(&b->moved_ns, 0, RLX);
    atomic_fetch_add_explicit(&b->generation, 1, memory_order_release);
}

/* Give blocks [s, s+n) back: memory released in every tier, residence
 * reset, run returned to the free list. */
static void release_blocks(size_t s, size_t n)
{
    uint32_t seen[64];
    int res[64];
    if (lent.settle)
        lent.settle(s, n);
    for (size_t c = s; c < s + n; c += 64) {
        size_t m = s + n - c < 64 ? s + n - c : 64;
        bool in_tier[UVAS_RES_COUNT] = {false};
        for (size_t i = 0; i < m; i++) {
            struct uvas_block *b = &uvas_g.bt[c + i];
            atomic_store_explicit(&b->owner, 0, REL);
            atomic_store_explicit(&b->kind, UVAS_BK_NONE, REL);
            res[i] = take_for_release(b, &seen[i]);
            in_tier[res[i]] = true;
        }
        /* The host release runs for every block: a device-resident block
         * keeps its (stale) host pages in the memfd too. */
        if (uvas_tier_host.release(c, m) != UVAS_OK)
            uvas_warn("%s", uvas_last_error());
        const struct uvas_tier_ops *dev = uvas_tier_of(UVAS_RES_DEVICE);
        if (in_tier[UVAS_RES_DEVICE] && dev && dev->release(c, m) != UVAS_OK)
            uvas_warn("%s", uvas_last_error());
        /* The policies' tick reads counts between the owner and the
         * generation: any zero it reads orders the owner's clearing
         * before it (migrate/tick.c). */
        atomic_thread_fence(memory_order_release);
        uvas_gate_acc_forget(c, m);
        for (size_t i = 0; i < m; i++) {
            forget_block(&uvas_g.bt[c + i]);
            uvas_blk_publish(&uvas_g.bt[c + i], seen[i], UVAS_RES_UNPOPULATED);
            if (res[i] != UVAS_RES_UNPOPULATED) {
                uvas_stats_block_out(res[i]);
                atomic_fetch_add_explicit(&uvas_g.ctr.blocks_released, 1, RLX);
            }
        }
        /* Faults dropped while the blocks were BUSY must retry. */
        if (uvas_g.uffd.fd >= 0)
            uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(c), m << uvas_g.shift);
    }
    uvas_extents_give(&uvas_g.extents, s, n);
}

/* ---- whole-block allocations --------------------------------------------- */

static void *extent_alloc(size_t size, size_t align, int heap, unsigned hints)
{
    size_t n = (size + uvas_g.block_size - 1) >> uvas_g.shift;
    size_t ab = align > uvas_g.block_size ? align >> uvas_g.shift : 1;
    size_t s;
    /* The address aligned, not the block's number: a range whose base is
     * not that aligned (UVAS_BASE, or any) gave misaligned memory (found
     * by review). */
    if (!uvas_extents_take(&uvas_g.extents, n, ab, (uintptr_t)uvas_g.base >> uvas_g.shift, &s))
        return NULL;
    struct uvas_block *h = &uvas_g.bt[s];
    atomic_store_explicit(&h->size, size, RLX);
    atomic_store_explicit(&h->nblocks, (uint32_t)n, RLX);
    assign_blocks(s, s, n, heap, hints, UVAS_BK_EXTENT);
    uvas_stats_reserve(heap, (long)(n << uvas_g.shift));
    return uvas_block_addr(s);
}

static void extent_free(size_t head)
{
    struct uvas_block *h = &uvas_g.bt[head];
    size_t n = atomic_load_explicit(&h->nblocks, RLX);
    int heap = atomic_load_explicit(&h->heap, RLX);
    uvas_stats_free(heap, atomic_load_explicit(&h->size, RLX));
    uvas_stats_reserve(heap, -(long)(n << uvas_g.shift));
    release_blocks(head, n);
    h->flags |= UVAS_BF_FREED_HEAD;
}

/* ---- slabs ------------------------------------------------------------------ */

static void list_push(uint32_t *head, size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    b->prev = 0;
    b->next = *head;
    if (*head)
        uvas_g.bt[*head - 1].prev = (uint32_t)bi + 1;
    *head = (uint32_t)bi + 1;
}

static void list_remove(uint32_t *head, size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    if (b->prev)
        uvas_g.bt[b->prev - 1].next = b->next;
    else
        *head = b->next;
    if (b->next)
        uvas_g.bt[b->next - 1].prev = b->prev;
    b->next = b->prev = 0;
}

static uint32_t slab_slot_size(const struct uvas_block *b)
{
    return uvas_g.slabs.class_size[atomic_load_explicit(&b->cls, RLX)];
}

static void *slab_alloc(int cls, size_t size, int heap, unsigned hints)
{
    struct uvas_slabs *S = &uvas_g.slabs;
    uint32_t *partial = &S->partial[heap][cls];
    if (!*partial) {
        size_t bi;
        if (S->empty[heap][cls]) {
            bi = S->empty[heap][cls] - 1;
            S->empty[heap][cls] = 0;
        } else {
            if (!uvas_extents_take(&uvas_g.extents, 1, 1, 0, &bi))
                return NULL;
            struct uvas_block *b = &uvas_g.bt[bi];
            atomic_store_explicit(&b->cls, (uint16_t)cls, RLX);
            b->used = b->hw = 0;
            assign_blocks(bi, bi, 1, heap, hints & UVAS_HINT_MASK, UVAS_BK_SLAB);
            uvas_stats_reserve(heap, (long)uvas_g.block_size);
        }
        list_push(partial, bi);
    }
    size_t bi = *partial - 1;
    struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t slot_size = S->class_size[cls];
    uint32_t nslots = (uint32_t)(uvas_g.block_size / slot_size);
    long slot = uvas_slab_take_slot(S, bi, nslots);
    if (slot < 0) /* cannot happen: partial slabs have a free slot */
        return NULL;
    atomic_store_explicit(&uvas_slab_sizes(S, bi)[slot], (uint32_t)size, RLX);
    b->used++;
    if ((uint32_t)slot + 1 > b->hw)
        b->hw = (uint32_t)slot + 1;
    if (b->used == nslots)
        list_remove(partial, bi);
    return uvas_block_addr(bi) + (size_t)slot * slot_size;
}

static void slab_free(size_t bi, uint32_t slot)
{
    struct uvas_slabs *S = &uvas_g.slabs;
    struct uvas_block *b = &uvas_g.bt[bi];
    int cls = atomic_load_explicit(&b->cls, RLX);
    int heap = atomic_load_explicit(&b->heap, RLX);
    uint32_t nslots = (uint32_t)(uvas_g.block_size / S->class_size[cls]);
    uvas_stats_free(heap, atomic_load_explicit(&uvas_slab_sizes(S, bi)[slot], RLX));
    uvas_slab_put_slot(S, bi, slot);
    uint32_t *partial = &S->partial[heap][cls];
    if (b->used-- == nslots)
        list_push(partial, bi);
    if (b->used)
        return;
    list_remove(partial, bi);
    /* Keep one empty slab per class and heap: a free/malloc cycle on the
     * boundary must not release and re-populate a block each time. */
    if (!S->empty[heap][cls]) {
        S->empty[heap][cls] = (uint32_t)bi + 1;
        return;
    }
    uvas_slab_forget(S, bi);
    uvas_stats_reserve(heap, -(long)uvas_g.block_size);
    release_blocks(bi, 1);
}

/* ---- shared paths -------------------------------------------------------- */

/* Lock held. */
static void *alloc_locked(size_t size, size_t align, int heap, unsigned hints)
{
    int cls = uvas_slab_class(&uvas_g.slabs, size, align);
    void *p = cls >= 0 ? slab_alloc(cls, size, heap, hints) : extent_alloc(size, align, heap, hints);
    if (p)
        uvas_stats_alloc(heap, size);
    return p;
}

struct located {
    int kind;
    size_t bi;      /* extent head, or slab block */
    uint32_t slot;  /* slab */
    size_t size;    /* requested */
};

/* Find the live allocation that starts at p (lock held). */
static int locate(const void *p, struct located *l, const char *fn)
{
    if (!uvas_in_range(p))
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s(%p): pointer is outside the uvas range "
                         "[%p, %p)", fn, p, (void *)uvas_g.base,
                         (void *)(uvas_g.base + uvas_g.size));
    size_t bi = uvas_block_index(p);
    struct uvas_block *b = &uvas_g.bt[bi];
    int kind = atomic_load_explicit(&b->kind, RLX);
    if (kind == UVAS_BK_EXTENT) {
        size_t head = atomic_load_explicit(&b->owner, RLX) - 1;
        char *start = uvas_block_addr(head);
        size_t size = atomic_load_explicit(&uvas_g.bt[head].size, RLX);
        if ((const char *)p != start)
            return (const char *)p < start + size
                       ? uvas_fail(UVAS_ERR_INVAL, "%s(%p): pointer is inside the allocation "
                                   "at %p, not its start", fn, p, (void *)start)
                       : uvas_fail(UVAS_ERR_NOT_OWNED, "%s(%p): pointer is past the end of "
                                   "the allocation at %p", fn, p, (void *)start);
        const struct uvas_block *hb = &uvas_g.bt[head];
        if ((atomic_load_explicit(&hb->advice, RLX) & UVAS_BA_SHARED) &&
            uvas_devtier_is_foreign(hb->dev_slot))
            return uvas_fail(UVAS_ERR_INVAL, "%s(%p): the memory was imported from another "
                             "process's pool (uvas_pool_import_pointer): uvas_pool_destroy of "
                             "the imported pool lets it go", fn, p);
        *l = (struct located){UVAS_BK_EXTENT, head, 0, size};
        return UVAS_OK;
    }
    if (kind == UVAS_BK_SLAB) {
        uint32_t ss = slab_slot_size(b);
        size_t off = (size_t)((const char *)p - uvas_block_addr(bi));
        uint32_t slot = (uint32_t)(off / ss);
        if (slot >= uvas_g.block_size / ss)
            return uvas_fail(UVAS_ERR_NOT_OWNED, "%s(%p): pointer is in no allocation", fn, p);
        bool live = uvas_slab_live(&uvas_g.slabs, bi, slot);
        size_t size = atomic_load_explicit(&uvas_slab_sizes(&uvas_g.slabs, bi)[slot], RLX);
        if (off % ss)
            return live && off % ss < size
                       ? uvas_fail(UVAS_ERR_INVAL, "%s(%p): pointer is inside an allocation, "
                                   "not its start", fn, p)
                       : uvas_fail(UVAS_ERR_NOT_OWNED, "%s(%p): pointer is in no allocation",
                                   fn, p);
        if (!live)
            return slot < b->hw ? uvas_fail(UVAS_ERR_DOUBLE_FREE, "%s(%p): allocation was "
                                            "already freed", fn, p)
                                : uvas_fail(UVAS_ERR_NOT_OWNED, "%s(%p): pointer is in no "
                                            "allocation", fn, p);
        *l = (struct located){UVAS_BK_SLAB, bi, slot, size};
        return UVAS_OK;
    }
    if ((b->flags & UVAS_BF_FREED_HEAD) && (const char *)p == uvas_block_addr(bi))
        return uvas_fail(UVAS_ERR_DOUBLE_FREE, "%s(%p): allocation was already freed", fn, p);
    return uvas_fail(UVAS_ERR_NOT_OWNED, "%s(%p): pointer is in no live uvas allocation", fn, p);
}

/* Freeing (or moving) memory a hold of the program's keeps (uvas_gpu_hold)
 * would wait for the hold to end with the allocator's lock held: for
 * ever, from the thread that holds it, and every allocation of every
 * thread with it (found by review); a small allocation whose block stays
 * (its neighbours live) was freed and handed out again while held, or
 * moved by realloc, whose copy waited (found by the next review).
 * Refused instead. Lock held. */
static int refuse_held(const struct located *l, const void *p, const char *fn)
{
    if (!lent.held || !lent.held(p, l->size ? l->size : 1))
        return UVAS_OK;
    return uvas_fail(UVAS_ERR_INVAL, "%s(%p): its memory is held by uvas_gpu_hold: call "
                     "uvas_gpu_release first", fn, p);
}

bool uvas_alloc_held(const void *p)
{
    char *base;
    size_t size;
    return lent.held && uvas_span_alloc(p, &base, &size) && lent.held(base, size ? size : 1);
}

static void free_located(const struct located *l)
{
    uvas_span_changed();
    if (l->kind == UVAS_BK_EXTENT)
        extent_free(l->bi);
    else
        slab_free(l->bi, l->slot);
}

static void place_device_heap(void *p, size_t size);
static void place_host_heap(void *p, size_t size);

/* Where a heap's memory goes at its allocation, and again after a realloc
 * (its grown or moved blocks were left unpopulated: a host-heap object's
 * grown part was not on the host, where shmem_ptr stores must land; found
 * by review). */
static void place_by_hints(void *p, size_t size, unsigned hints)
{
    if ((hints & UVAS_HINT_DEVICE) && uvas_devtier_present(&uvas_g.devtier))
        place_device_heap(p, size);
    else if (hints & UVAS_HINT_HOST)
        place_host_heap(p, size);
}

/* The message is already recorded; set errno and return NULL. */
static void *null_errno(int err, int status)
{
    (void)status;
    errno = err;
    return NULL;
}

static void warn_no_device_once(void)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&said))
        uvas_warn("UVAS_HINT_DEVICE: %s; such blocks are placed on the host tier (uvas_query "
                  "reports where they are; UVAS_DEVICE_STRICT=1 makes this an error)",
                  uvas_g.device_note);
}

/* Device-heap memory lives on the device from the start, as cudaMalloc's
 * does: no touch is needed for it to exist there. Blocks that do not fit
 * stay untouched and are placed on first touch. */
static void place_device_heap(void *p, size_t size)
{
    size_t first = uvas_block_index(p);
    size_t n = uvas_block_index((char *)p + size - 1) - first + 1;
    if (!lent.to_device)
        return; /* first touch places it */
    if (lent.to_device(first, n) != UVAS_OK)
        uvas_warn("UVAS_HINT_DEVICE: %s; the rest stays on the host", uvas_last_error());
    uvas_clear_error(); /* the allocation itself succeeded */
}

/* Host-heap memory is placed on the host at allocation and never leaves it
 * (migrate/migrate.c skips it on the way to the device): peers may then hold
 * direct pointers into it (shmem_ptr) that no migration invalidates, and a
 * store through one never reaches a block the owner has not populated. */
static void place_host_heap(void *p, size_t size)
{
    if (uvas_g.fault_mode != UVAS_FAULT_UFFD)
        return; /* eager mode placed it already */
    size_t first = uvas_block_index(p);
    size_t n = uvas_block_index((char *)p + size - 1) - first + 1;
    for (size_t bi = first; bi < first + n; bi++) {
        struct uvas_block *b = &uvas_g.bt[bi];
        uint32_t seen;
        if (!uvas_blk_try_busy(b, UVAS_RES_UNPOPULATED, &seen))
            continue; /* populated already (a slab's block), or being populated */
        char *a = uvas_block_addr(bi);
        if (uvas_tier_host.populate(bi, (uintptr_t)a) == UVAS_OK) {
            uvas_blk_publish(b, seen, UVAS_RES_HOST);
            uvas_stats_block_in(UVAS_RES_HOST, 1);
        } else { /* its first touch will try again */
            uvas_blk_unbusy(b, seen);
        }
        uvas_uffd_wake(&uvas_g.uffd, a, uvas_g.block_size);
    }
    uvas_clear_error(); /* the allocation itself succeeded */
}

void *uvas_alloc_entered(size_t size, size_t align, unsigned hints, const char *fn)
{
    if (size == 0)
        return null_errno(EINVAL, uvas_fail(UVAS_ERR_INVAL, "%s: size 0 is not an "
                                            "allocation", fn));
    if ((hints & ~UVAS_HINT_MASK) || (hints & UVAS_HINT_MASK) == UVAS_HINT_MASK) {
        uvas_fail(UVAS_ERR_INVAL, "%s: hints %#x are invalid: use UVAS_HINT_HOST or "
                  "UVAS_HINT_DEVICE (not both), or none", fn, hints);
        errno = EINVAL;
        return NULL;
    }
    if (size > uvas_g.size || align > uvas_g.size) {
        uvas_fail(UVAS_ERR_NOMEM, "%s: %zu bytes (alignment %zu) cannot fit the %zu-byte "
                  "range: raise UVAS_SIZE", fn, size, align, uvas_g.size);
        errno = ENOMEM;
        return NULL;
    }
    bool device = uvas_devtier_present(&uvas_g.devtier);
    if ((hints & UVAS_HINT_DEVICE) && !device) {
        if (uvas_g.cfg.flags & UVAS_INIT_DEVICE_STRICT) {
            uvas_fail(UVAS_ERR_NO_DEVICE, "%s: UVAS_HINT_DEVICE with UVAS_DEVICE_STRICT=1, "
                      "but %s", fn, uvas_g.device_note);
            errno = ENODEV;
            return NULL;
        }
        warn_no_device_once();
    }
    pthread_mutex_lock(&uvas_g.lock);
    void *p = alloc_locked(size, align, heap_of(hints), hints);
    size_t free_bytes = uvas_g.extents.free_blocks << uvas_g.shift;
    pthread_mutex_unlock(&uvas_g.lock);
    if (!p) {
        uvas_fail(UVAS_ERR_NOMEM, "%s: no room for %zu bytes in the range (%zu bytes of "
                  "free blocks, possibly fragmented): raise UVAS_SIZE", fn, size, free_bytes);
        errno = ENOMEM;
    } else {
        place_by_hints(p, size, hints);
    }
    return p;
}

void *uvas_calloc_entered(size_t total)
{
    char *p = uvas_alloc_entered(total, 16, 0, "uvas_calloc");
    if (!p)
        return NULL;
    /* Memory reads zero unless its block was populated since it was
     * released: a slab's earlier slots, or a stray store into free blocks
     * (a use after free) that the fault path filled. Only those blocks are
     * cleared, so an untouched extent stays untouched. */
    char *end = p + total;
    for (char *q = p; q < end;) {
        size_t bi = uvas_block_index(q);
        char *bend = uvas_block_addr(bi) + uvas_g.block_size;
        if (bend > end)
            bend = end;
        if (uvas_blk_may_hold_data(atomic_load_explicit(&uvas_g.bt[bi].state, ACQ)))
            memset(q, 0, (size_t)(bend - q));
        q = bend;
    }
    return p;
}

static int try_free_entered(void *p)
{
    uvas_clear_error();
    if (!p)
        return UVAS_OK;
    if (!atomic_load_explicit(&uvas_g.ready, ACQ))
        return uvas_fail(UVAS_ERR_NOT_OWNED, "uvas_free(%p): uvas is not initialised", p);
    struct located l;
    pthread_mutex_lock(&uvas_g.lock);
    int rc = locate(p, &l, "uvas_free");
    if (rc == UVAS_OK)
        rc = refuse_held(&l, p, "uvas_free");
    if (rc == UVAS_OK)
        free_located(&l);
    pthread_mutex_unlock(&uvas_g.lock);
    return rc;
}

int uvas_free_import(void *p)
{
    if (uvas_api_enter("uvas_pool_destroy"))
        return UVAS_ERR_NOT_INIT;
    uvas_clear_error();
    size_t bi = uvas_in_range(p) ? uvas_block_index(p) : 0;
    struct uvas_block *b = &uvas_g.bt[bi];
    struct located l;
    pthread_mutex_lock(&uvas_g.lock);
    int rc = uvas_in_range(p) && atomic_load_explicit(&b->kind, RLX) == UVAS_BK_EXTENT &&
                     atomic_load_explicit(&b->owner, RLX) == bi + 1 &&
                     uvas_devtier_is_foreign(b->dev_slot)
                 ? UVAS_OK
                 : uvas_fail(UVAS_ERR_NOT_OWNED, "%p is no longer an imported allocation", p);
    if (rc == UVAS_OK) {
        l = (struct located){UVAS_BK_EXTENT, bi, 0, atomic_load_explicit(&b->size, RLX)};
        rc = refuse_held(&l, p, "uvas_pool_destroy");
    }
    if (rc == UVAS_OK)
        free_located(&l);
    pthread_mutex_unlock(&uvas_g.lock);
    uvas_api_leave();
    return rc;
}

int uvas_try_free(void *p)
{
    if (!p) {
        uvas_clear_error();
        return UVAS_OK;
    }
    if (uvas_api_enter("uvas_free"))
        return uvas_fail(UVAS_ERR_NOT_OWNED, "uvas_free(%p): uvas is not initialised", p);
    int rc = try_free_entered(p);
    uvas_api_leave();
    return rc;
}

void uvas_free(void *p)
{
    int rc = uvas_try_free(p);
    if (rc) {
        fprintf(stderr, "uvas: %s\n", uvas_last_error());
        errno = EINVAL;
    }
}

/* Copy the populated blocks of [src, src+len) into dst, which reads zero:
 * untouched source blocks need no copy, and reading them would populate
 * them for nothing. */
static void copy_populated(char *dst, const char *src, size_t len)
{
    size_t off = 0;
    while (off < len) {
        const char *s = src + off;
        size_t bend = (((uintptr_t)s - (uintptr_t)uvas_g.base) | (uvas_g.block_size - 1)) + 1;
        size_t chunk = (size_t)((uvas_g.base + bend) - s);
        if (chunk > len - off)
            chunk = len - off;
        uint32_t st = atomic_load_explicit(&uvas_g.bt[uvas_block_index(s)].state, ACQ);
        if (uvas_blk_may_hold_data(st))
            memcpy(dst + off, s, chunk);
        off += chunk;
    }
}

/* Lock held: resize in place when the slot or the following blocks allow. */
static bool realloc_in_place(const struct located *l, size_t size)
{
    uvas_span_changed();
    if (l->kind == UVAS_BK_SLAB) {
        struct uvas_block *b = &uvas_g.bt[l->bi];
        int cls = atomic_load_explicit(&b->cls, RLX);
        if (uvas_slab_class(&uvas_g.slabs, size, 16) != cls)
            return false;
        int heap = atomic_load_explicit(&b->heap, RLX);
        uvas_stats_free(heap, l->size);
        uvas_stats_alloc(heap, size);
        atomic_store_explicit(&uvas_slab_sizes(&uvas_g.slabs, l->bi)[l->slot], (uint32_t)size,
                              RLX);
        return true;
    }
    struct uvas_block *h = &uvas_g.bt[l->bi];
    size_t n = atomic_load_explicit(&h->nblocks, RLX);
    size_t want = (size + uvas_g.block_size - 1) >> uvas_g.shift;
    int heap = atomic_load_explicit(&h->heap, RLX);
    if (want > n && !uvas_extents_take_at(&uvas_g.extents, l->bi + n, want - n))
        return false;
    if (want > n)
        /* Owned by the allocation's head, whose size the bounds checks
         * read (uvas_span_alloc): named after their own first block, they
         * were held to a stale size there, a freed allocation's (a put
         * past the grown object's end then wrote into the next one). */
        assign_blocks(l->bi, l->bi + n, want - n, heap, atomic_load_explicit(&h->hints, RLX),
                      UVAS_BK_EXTENT);
    else if (want < n)
        release_blocks(l->bi + want, n - want);
    uvas_stats_reserve(heap, ((long)want - (long)n) * (long)uvas_g.block_size);
    uvas_stats_free(heap, l->size);
    uvas_stats_alloc(heap, size);
    atomic_store_explicit(&h->nblocks, (uint32_t)want, RLX);
    atomic_store_explicit(&h->size, size, RLX);
    return true;
}

void *uvas_realloc_entered(void *p, size_t size)
{
    uvas_clear_error();
    if (size == 0)
        return null_errno(EINVAL, uvas_fail(UVAS_ERR_INVAL, "uvas_realloc(%p, 0): size 0 is "
                                            "not an allocation: use uvas_free", p));
    if (!atomic_load_explicit(&uvas_g.ready, ACQ))
        return null_errno(EINVAL, uvas_fail(UVAS_ERR_NOT_OWNED, "uvas_realloc(%p): uvas is "
                                            "not initialised", p));
    if (size > uvas_g.size)
        return null_errno(ENOMEM, uvas_fail(UVAS_ERR_NOMEM, "uvas_realloc: %zu bytes cannot "
                                            "fit the range: raise UVAS_SIZE", size));
    struct located l;
    pthread_mutex_lock(&uvas_g.lock);
    int rc = locate(p, &l, "uvas_realloc");
    if (rc == UVAS_OK)
        rc = refuse_held(&l, p, "uvas_realloc");
    if (rc) {
        pthread_mutex_unlock(&uvas_g.lock);
        errno = EINVAL;
        return NULL;
    }
    struct uvas_block *b = &uvas_g.bt[l.bi];
    unsigned hints = atomic_load_explicit(&b->hints, RLX);
    if (realloc_in_place(&l, size)) {
        pthread_mutex_unlock(&uvas_g.lock);
        place_by_hints(p, size, hints);
        return p;
    }
    char *q = alloc_locked(size, 16, heap_of(hints), hints);
    pthread_mutex_unlock(&uvas_g.lock);
    if (!q)
        return null_errno(ENOMEM, uvas_fail(UVAS_ERR_NOMEM, "uvas_realloc: no room for %zu "
                                            "bytes in the range: raise UVAS_SIZE", size));
    size_t n = l.size < size ? l.size : size;
    if (atomic_load_explicit(&uvas_g.bt[uvas_block_index(q)].kind, RLX) == UVAS_BK_EXTENT)
        copy_populated(q, p, n);
    else
        memcpy(q, p, n);
    uvas_try_free(p);
    place_by_hints(q, size, hints);
    return q;
}
