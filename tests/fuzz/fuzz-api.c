/*
 * The public API's argument space: the input is a sequence of calls
 * (malloc, malloc_hint, calloc, aligned_alloc, realloc, free, try_free on
 * live, freed, interior or bogus pointers, query, query_range,
 * residency_map, migrate, advise) with sizes, flags and locations from the
 * input, after one uvas_init of a 64 MiB range (UVAS_DEVICE=none unless
 * set; UVAS_FAULT as set, default uffd). Each result is checked against a
 * model of the live allocations:
 *   - a new allocation lies in the range, aligned, overlapping no live one;
 *   - each allocation's contents (a pattern written after it was made or
 *     moved) stay intact through every other call; calloc's read zero;
 *   - queries of a live pointer give its base, size and hints, queries of
 *     any other byte UVAS_ERR_NOT_OWNED;
 *   - a bogus, interior or freed pointer is refused (a double free with an
 *     error) and changes nothing;
 *   - statuses of migrate and advise follow their documented order of
 *     checks; the per-heap accounting matches the model.
 * Everything is freed at the end of each input, so inputs are independent.
 */
#include <errno.h>
#include <stdbool.h>

#include "fuzz.h"
#include "uvas.h"

#define MAXLIVE 48
#define MAXFREED 16

struct alloc {
    char *p;
    size_t size;
    unsigned hints;
    uint8_t seed;
};

static struct alloc live[MAXLIVE];
static int nlive;
static char *freed[MAXFREED];
static int nfreed;
static char *base;
static size_t rsize, bsize;
static bool device;
static struct uvas_stats st0;
static int junk_heap[4]; /* a pointer uvas does not own */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("UVAS_SIZE", "64M", 1);
    if (!getenv("UVAS_DEVICE"))
        setenv("UVAS_DEVICE", "none", 1);
    if (!getenv("UVAS_FAULT"))
        setenv("UVAS_FAULT", "uffd", 1);
    setenv("UVAS_FAULT_THREADS", "1", 1);
    unsetenv("UVAS_POLICY");
    struct uvas_options o = {.flags = UVAS_INIT_QUIET};
    if (uvas_init(&o)) {
        fprintf(stderr, "fuzz-api: uvas_init: %s\n", uvas_last_error());
        exit(1);
    }
    struct uvas_range_desc d;
    if (uvas_range(&d))
        exit(1);
    base = d.base;
    rsize = d.size;
    bsize = d.block_size;
    device = d.device_present;
    uvas_stats_get(&st0);
    return 0;
}

static uint8_t pat(const struct alloc *a, size_t i)
{
    return (uint8_t)(a->seed + i * 7 + (i >> 9));
}

static void fill(struct alloc *a, size_t from)
{
    for (size_t i = from; i < a->size; i++)
        a->p[i] = (char)pat(a, i);
}

static void verify(const struct alloc *a, bool full)
{
    size_t n = a->size;
    if (!full && n > 512) { /* ends and a stride */
        for (size_t i = 0; i < n; i += (i < 256 || i >= n - 256) ? 1 : 4093)
            FZ_CHECK((uint8_t)a->p[i] == pat(a, i), "%p+%zu of %zu changed", (void *)a->p, i, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        FZ_CHECK((uint8_t)a->p[i] == pat(a, i), "%p+%zu of %zu changed", (void *)a->p, i, n);
}

static int heap_of(unsigned hints)
{
    return hints & UVAS_HINT_HOST ? UVAS_HEAP_HOST
           : hints & UVAS_HINT_DEVICE ? UVAS_HEAP_DEVICE : UVAS_HEAP_UNIFIED;
}

static int find_live(const char *p) /* the allocation containing p, -1 none */
{
    for (int i = 0; i < nlive; i++)
        if (p >= live[i].p && p < live[i].p + live[i].size)
            return i;
    return -1;
}

static void check_query(const struct alloc *a, size_t off)
{
    struct uvas_ptr_info info;
    int rc = uvas_query(a->p + off, &info);
    FZ_CHECK(rc == UVAS_OK, "query %p+%zu: %d", (void *)a->p, off, rc);
    FZ_CHECK(info.alloc_base == a->p && info.alloc_size == a->size && info.alloc_hints == a->hints,
             "query %p+%zu: base %p size %zu hints %#x, want %zu %#x", (void *)a->p, off,
             info.alloc_base, info.alloc_size, info.alloc_hints, a->size, a->hints);
    FZ_CHECK(info.block_size == bsize && (char *)info.block_base <= a->p + off &&
             a->p + off < (char *)info.block_base + bsize, "query %p+%zu: block %p",
             (void *)a->p, off, info.block_base);
    FZ_CHECK(info.residence >= 0 && info.residence < UVAS_RES_COUNT &&
             (device || info.residence != UVAS_RES_DEVICE), "residence %d", info.residence);
}

/* A new (or moved) allocation: in the range, aligned, overlapping none. */
static void admit(char *p, size_t size, unsigned hints, size_t align, uint8_t seed, bool zero)
{
    FZ_CHECK(p >= base && size <= rsize && (size_t)(p - base) <= rsize - size,
             "%p+%zu outside the range", (void *)p, size);
    FZ_CHECK(!((uintptr_t)p & (align - 1)), "%p not %zu-aligned", (void *)p, align);
    for (int i = 0; i < nlive; i++)
        FZ_CHECK(p + size <= live[i].p || live[i].p + live[i].size <= p,
                 "%p+%zu overlaps %p+%zu", (void *)p, size, (void *)live[i].p, live[i].size);
    if (zero)
        for (size_t i = 0; i < size; i++)
            FZ_CHECK(!p[i], "calloc'd %p+%zu is %d", (void *)p, i, p[i]);
    FZ_CHECK(nlive < MAXLIVE, "model full");
    live[nlive] = (struct alloc){p, size, hints, seed};
    fill(&live[nlive], 0);
    check_query(&live[nlive], 0);
    check_query(&live[nlive], size - 1);
    nlive++;
    for (int i = 0; i < nfreed; i++) /* no longer a freed pointer */
        if (freed[i] >= p && freed[i] < p + size)
            freed[i--] = freed[--nfreed];
}

static void drop(int i)
{
    if (nfreed == MAXFREED)
        memmove(freed, freed + 1, --nfreed * sizeof freed[0]);
    freed[nfreed++] = live[i].p;
    live[i] = live[--nlive];
}

/* A size: small, medium, up to 1 MiB, around the range, or anything. */
static size_t size_of(struct fz_in *in)
{
    uint8_t k = fz_u8(in);
    switch (k % 8) {
    case 0: case 1: case 2: return fz_u8(in);
    case 3: case 4: return fz_u16(in);
    case 5: return fz_u32(in) % (1u << 20);
    case 6: return rsize - 8 + fz_u8(in) % 16; /* the range size, give or take */
    default: return fz_u64(in);
    }
}

/* A pointer that is not (the start of) a live allocation, or NULL. */
static char *bogus(struct fz_in *in)
{
    uint8_t k = fz_u8(in);
    uint64_t x = fz_u64(in);
    switch (k % 7) {
    case 0: return nlive ? live[x % nlive].p + 1 + (x >> 32) % live[x % nlive].size : base;
    case 1: return nfreed ? freed[x % nfreed] : base + rsize / 2;
    case 2: return base + x % rsize;
    case 3: return base + rsize + x % 4096;
    case 4: return (char *)junk_heap;
    case 5: return base - 16;
    default: return (char *)(uintptr_t)x;
    }
}

static bool is_live_base(const char *p)
{
    for (int i = 0; i < nlive; i++)
        if (live[i].p == p)
            return true;
    return false;
}

static void check_all_quick(void)
{
    for (int i = 0; i < nlive; i++) {
        verify(&live[i], false);
        check_query(&live[i], 0);
    }
}

/* Expected status of migrate/advise's shared checks (migrate/api.c). */
static int expect_blocks(const char *p, size_t len)
{
    if (len == 0)
        return UVAS_ERR_INVAL;
    int i = find_live(p);
    if (i < 0)
        return UVAS_ERR_NOT_OWNED;
    if (len > live[i].size - (size_t)(p - live[i].p)) /* past its allocation (uvas/span.c) */
        return UVAS_ERR_INVAL;
    return UVAS_OK;
}

static void one(struct fz_in *in)
{
    uint8_t op = fz_u8(in);
    switch (op % 14) {
    case 0: case 1: { /* malloc, malloc_hint */
        size_t n = size_of(in);
        unsigned hints = op % 14 ? fz_u8(in) % 5 : 0; /* 3 and 4 are invalid */
        errno = 0;
        char *p = op % 14 ? uvas_malloc_hint(n, hints) : uvas_malloc(n);
        bool valid = n > 0 && n <= rsize && hints != 3 && hints != 4;
        if (!valid)
            FZ_CHECK(!p && errno, "malloc_hint(%zu, %#x) = %p", n, hints, (void *)p);
        if (p && nlive < MAXLIVE)
            admit(p, n, hints, 16, op, false);
        else if (p)
            uvas_free(p);
        break;
    }
    case 2: { /* calloc */
        size_t a = op & 0x80 ? fz_u64(in) : fz_u8(in), b = size_of(in);
        size_t total;
        bool over = __builtin_mul_overflow(a, b, &total);
        char *p = uvas_calloc(a, b);
        if (over || total == 0 || total > rsize)
            FZ_CHECK(!p, "calloc(%zu, %zu) = %p", a, b, (void *)p);
        if (p && nlive < MAXLIVE)
            admit(p, total, 0, 16, op, true);
        else if (p)
            uvas_free(p);
        break;
    }
    case 3: { /* aligned_alloc */
        uint8_t e = fz_u8(in);
        size_t align = e & 0x40 ? (size_t)fz_u32(in) : (size_t)1 << (e % 30);
        size_t n = size_of(in);
        unsigned hints = fz_u8(in) % 4;
        char *p = uvas_aligned_alloc(align, n, hints);
        bool valid = align && !(align & (align - 1)) && n && n <= rsize && align <= rsize &&
                     hints != 3;
        if (!valid)
            FZ_CHECK(!p, "aligned_alloc(%zu, %zu, %#x) = %p", align, n, hints, (void *)p);
        if (p && nlive < MAXLIVE)
            admit(p, n, hints, align, op, false);
        else if (p)
            uvas_free(p);
        break;
    }
    case 4: { /* realloc a live allocation */
        size_t n = size_of(in);
        if (!nlive)
            break;
        int i = (int)(fz_u8(in) % nlive);
        struct alloc a = live[i];
        char *q = uvas_realloc(a.p, n);
        if (n == 0 || n > rsize)
            FZ_CHECK(!q, "realloc(%p, %zu) = %p", (void *)a.p, n, (void *)q);
        if (!q) { /* unchanged */
            verify(&live[i], true);
            check_query(&live[i], 0);
            break;
        }
        size_t keep = a.size < n ? a.size : n;
        for (size_t k = 0; k < keep; k++)
            FZ_CHECK((uint8_t)q[k] == pat(&a, k), "realloc(%p, %zu) -> %p lost byte %zu",
                     (void *)a.p, n, (void *)q, k);
        live[i] = live[--nlive];
        if (q != a.p) {
            if (nfreed == MAXFREED)
                memmove(freed, freed + 1, --nfreed * sizeof freed[0]);
            freed[nfreed++] = a.p;
        }
        a.p = q;
        admit(q, n, a.hints, 16, a.seed, false);
        /* admit rewrote the pattern from 0 with the same seed: the kept
         * bytes were already equal. */
        break;
    }
    case 5: { /* free a live allocation */
        if (!nlive)
            break;
        int i = (int)(fz_u8(in) % nlive);
        verify(&live[i], false);
        int rc = uvas_try_free(live[i].p);
        FZ_CHECK(rc == UVAS_OK, "free(%p): %d", (void *)live[i].p, rc);
        char *p = live[i].p;
        drop(i);
        struct uvas_ptr_info info;
        FZ_CHECK(uvas_query(p, &info) == UVAS_ERR_NOT_OWNED, "query of freed %p", (void *)p);
        break;
    }
    case 6: case 7: { /* try_free / realloc of something not freeable */
        char *p = bogus(in);
        if (!p || is_live_base(p))
            break;
        if (op % 14 == 7) {
            errno = 0;
            char *q = uvas_realloc(p, 64);
            FZ_CHECK(!q && errno == EINVAL, "realloc(bogus %p) = %p, errno %d", (void *)p,
                     (void *)q, errno);
            check_all_quick();
            break;
        }
        int rc = uvas_try_free(p);
        FZ_CHECK(rc != UVAS_OK, "free(%p) of no live allocation accepted", (void *)p);
        bool in_range = p >= base && p < base + rsize;
        if (!in_range)
            FZ_CHECK(rc == UVAS_ERR_NOT_OWNED, "free(%p) outside: %d", (void *)p, rc);
        else
            FZ_CHECK(rc == UVAS_ERR_NOT_OWNED || rc == UVAS_ERR_INVAL ||
                     rc == UVAS_ERR_DOUBLE_FREE, "free(%p): %d", (void *)p, rc);
        if (find_live(p) >= 0)
            FZ_CHECK(rc == UVAS_ERR_INVAL, "free(interior %p): %d", (void *)p, rc);
        const char *msg = uvas_last_error();
        FZ_CHECK(msg && msg[0], "free(%p) refused without a message",
                 (void *)p);
        check_all_quick();
        break;
    }
    case 8: { /* query */
        char *p = op & 0x80 || !nlive ? bogus(in) : live[fz_u8(in) % nlive].p;
        if (!(op & 0x80) && nlive)
            p += fz_u32(in) % (size_t)(find_live(p) >= 0 ? live[find_live(p)].size : 1);
        struct uvas_ptr_info info;
        int rc = uvas_query(p, &info);
        int i = find_live(p);
        if (i >= 0)
            check_query(&live[i], (size_t)(p - live[i].p));
        else
            FZ_CHECK(rc == UVAS_ERR_NOT_OWNED, "query(%p) of no live allocation: %d",
                     (void *)p, rc);
        FZ_CHECK(uvas_query(p, NULL) == UVAS_ERR_INVAL, "query(%p, NULL)", (void *)p);
        break;
    }
    case 9: case 10: { /* query_range, residency_map */
        char *p = op & 0x80 || !nlive ? bogus(in) : live[fz_u8(in) % nlive].p;
        size_t len = op & 0x40 ? size_of(in) : fz_u16(in);
        bool inside = p >= base && p < base + rsize && len && len <= rsize &&
                      (size_t)(p - base) + len <= rsize;
        size_t nb = inside ? (size_t)((p + len - 1 - base) / bsize - (p - base) / bsize + 1) : 0;
        if (op % 14 == 9) {
            struct uvas_range_info ri;
            int rc = uvas_query_range(p, len, &ri);
            if (!inside) {
                FZ_CHECK(rc == (len ? UVAS_ERR_NOT_OWNED : UVAS_ERR_INVAL),
                         "query_range(%p, %zu): %d", (void *)p, len, rc);
                break;
            }
            FZ_CHECK(rc == UVAS_OK, "query_range(%p, %zu): %d", (void *)p, len, rc);
            FZ_CHECK(ri.block_size == bsize &&
                     ri.blocks[0] + ri.blocks[1] + ri.blocks[2] == nb &&
                     (device || !ri.blocks[UVAS_RES_DEVICE]),
                     "query_range(%p, %zu): %zu+%zu+%zu blocks, want %zu", (void *)p, len,
                     ri.blocks[0], ri.blocks[1], ri.blocks[2], nb);
        } else {
            uint8_t map[64];
            size_t cap = fz_u8(in) % 65, got = 12345;
            memset(map, 0xee, sizeof map);
            bool nomap = fz_u8(in) & 1;
            int rc = uvas_residency_map(p, len, nomap ? NULL : map, cap, &got);
            if (!inside) {
                FZ_CHECK(rc == (len ? UVAS_ERR_NOT_OWNED : UVAS_ERR_INVAL) && got == 12345,
                         "residency_map(%p, %zu): %d", (void *)p, len, rc);
                break;
            }
            FZ_CHECK(got == nb, "residency_map(%p, %zu): %zu blocks, want %zu", (void *)p, len,
                     got, nb);
            if (rc == UVAS_OK) {
                FZ_CHECK(!nomap && cap >= nb, "map of %zu for %zu blocks", cap, nb);
                for (size_t k = 0; k < nb; k++)
                    FZ_CHECK(map[k] < UVAS_RES_COUNT, "map[%zu] = %u", k, map[k]);
                for (size_t k = nb; k < sizeof map; k++)
                    FZ_CHECK(map[k] == 0xee, "map[%zu] written past %zu blocks", k, nb);
            } else {
                FZ_CHECK(rc == UVAS_ERR_INVAL && (nomap || cap < nb), "residency_map(%p, %zu, "
                         "%s, %zu): %d", (void *)p, len, nomap ? "NULL" : "map", cap, rc);
            }
        }
        break;
    }
    case 11: case 12: { /* migrate, advise */
        char *p = op & 0x80 || !nlive ? bogus(in) : live[fz_u8(in) % nlive].p;
        if (!(op & 0x80) && nlive && fz_u8(in) & 1)
            p += fz_u16(in) % live[find_live(p)].size;
        size_t len = op & 0x40 ? size_of(in) : fz_u16(in);
        int loc = (int)(fz_u8(in) % 4) - (op & 0x20 ? 1 : 0);
        int want = expect_blocks(p, len), rc;
        if (op % 14 == 11) {
            unsigned flags = fz_u8(in) % 3;
            rc = uvas_migrate(p, len, loc, flags);
            if (want == UVAS_OK && loc != UVAS_LOC_HOST && loc != UVAS_LOC_DEVICE)
                want = UVAS_ERR_INVAL;
            if (want == UVAS_OK && (flags & ~UVAS_MIGRATE_ASYNC))
                want = UVAS_ERR_INVAL;
            if (want == UVAS_OK && !device && loc == UVAS_LOC_DEVICE)
                want = UVAS_ERR_NO_DEVICE;
            if (want == UVAS_OK && loc == UVAS_LOC_DEVICE &&
                (live[find_live(p)].hints & UVAS_HINT_HOST))
                want = UVAS_ERR_INVAL; /* host-heap memory never moves */
            if (device && want == UVAS_OK && (rc == UVAS_ERR_NOMEM))
                want = rc; /* a full device tier */
            if (flags & UVAS_MIGRATE_ASYNC)
                (void)uvas_migrate_wait();
        } else {
            int advice = (int)(fz_u8(in) % 8);
            rc = uvas_advise(p, len, advice, loc);
            if (want == UVAS_OK && (advice < 1 || advice > 6))
                want = UVAS_ERR_INVAL;
            if (want == UVAS_OK && advice == UVAS_ADVISE_PREFERRED_LOCATION &&
                loc != UVAS_LOC_HOST && loc != UVAS_LOC_DEVICE)
                want = UVAS_ERR_INVAL;
            if (device && want == UVAS_OK && rc == UVAS_ERR_PERM)
                want = rc; /* read-mostly without uffd write-protect */
        }
        FZ_CHECK(rc == want, "%s(%p, %zu, loc %d): %d, want %d (%s)",
                 op % 14 == 11 ? "migrate" : "advise", (void *)p, len, loc, rc, want,
                 uvas_last_error());
        check_all_quick();
        break;
    }
    default: { /* touch: rewrite part of an allocation, then verify it all */
        if (!nlive)
            break;
        int i = (int)(fz_u8(in) % nlive);
        live[i].seed ^= fz_u8(in) | 1;
        fill(&live[i], 0);
        verify(&live[i], true);
        break;
    }
    }
}

static void check_stats(void)
{
    struct uvas_stats st;
    FZ_CHECK(uvas_stats_get(&st) == UVAS_OK, "stats");
    size_t used[UVAS_HEAP_COUNT] = {0}, count[UVAS_HEAP_COUNT] = {0};
    for (int i = 0; i < nlive; i++) {
        used[heap_of(live[i].hints)] += live[i].size;
        count[heap_of(live[i].hints)]++;
    }
    for (int h = 0; h < UVAS_HEAP_COUNT; h++) {
        FZ_CHECK(st.heap[h].used_current - st0.heap[h].used_current == used[h],
                 "heap %d: %zu bytes used, the model has %zu", h,
                 st.heap[h].used_current - st0.heap[h].used_current, used[h]);
        FZ_CHECK(st.heap[h].allocations - st0.heap[h].allocations == count[h],
                 "heap %d: %zu allocations, the model has %zu", h,
                 st.heap[h].allocations - st0.heap[h].allocations, count[h]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz_in in = {data, size};
    nlive = nfreed = 0;
    for (int k = 0; k < 96 && in.n; k++)
        one(&in);
    check_stats();
    for (int i = 0; i < nlive; i++)
        verify(&live[i], true);
    while (nlive) {
        char *p = live[nlive - 1].p;
        FZ_CHECK(uvas_try_free(p) == UVAS_OK, "final free(%p)", (void *)p);
        nlive--;
    }
    check_stats();
    return 0;
}
