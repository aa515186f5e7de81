/*
 * Placement of allocations: every pointer is 16-byte aligned and inside
 * [base, base+size); allocations larger than block_size/8 start on a block
 * boundary; uvas_aligned_alloc honours its alignment; no two live
 * allocations overlap; uvas_query reports each allocation's base, requested
 * size and hints; interior pointers map back to their allocation. Run for
 * the default block size and for 4K and 2M blocks.
 */
#include "check.h"

#define MAXA 1200

struct alloc {
    char *p;
    size_t n;
    unsigned hints;
};

static struct alloc live[MAXA];
static size_t nlive;

static int cmp_alloc(const void *a, const void *b)
{
    const struct alloc *x = a, *y = b;
    return x->p < y->p ? -1 : x->p > y->p;
}

static void check_one(const struct uvas_range_desc *d, const struct alloc *a,
                      size_t align)
{
    size_t bs = d->block_size;
    CHECK(a->p != NULL, "allocation of %zu failed", a->n);
    CHECK((uintptr_t)a->p % 16 == 0, "%p (size %zu) not 16-byte aligned",
          (void *)a->p, a->n);
    CHECK(tu_in_range(d, a->p, a->n), "%p + %zu outside [%p, +%zu)",
          (void *)a->p, a->n, d->base, d->size);
    if (a->n > bs / 8)
        CHECK((uintptr_t)a->p % bs == 0,
              "%p of size %zu > block_size/8 (%zu) is not on a block "
              "boundary", (void *)a->p, a->n, bs / 8);
    if (align)
        CHECK((uintptr_t)a->p % align == 0, "%p not aligned to %zu",
              (void *)a->p, align);
    struct uvas_ptr_info info;
    size_t offs[3] = {0, a->n / 2, a->n - 1};
    for (int i = 0; i < 3; i++) {
        memset(&info, 0xff, sizeof info);
        CHECK_OK(uvas_query(a->p + offs[i], &info));
        CHECK(info.alloc_base == a->p, "query(%p + %zu): alloc_base %p, "
              "expected %p", (void *)a->p, offs[i], info.alloc_base,
              (void *)a->p);
        CHECK(info.alloc_size == a->n, "query(%p): alloc_size %zu, "
              "expected %zu", (void *)a->p, info.alloc_size, a->n);
        CHECK(info.alloc_hints == a->hints, "query(%p): hints %u, expected "
              "%u", (void *)a->p, info.alloc_hints, a->hints);
        CHECK(info.block_size == bs, "query block_size %zu", info.block_size);
        uintptr_t want = ((uintptr_t)(a->p + offs[i])) & ~(uintptr_t)(bs - 1);
        CHECK((uintptr_t)info.block_base == want,
              "query(%p): block_base %p, expected %p",
              (void *)(a->p + offs[i]), info.block_base, (void *)want);
    }
}

static void check_no_overlap(void)
{
    static struct alloc sorted[MAXA];
    memcpy(sorted, live, nlive * sizeof live[0]);
    qsort(sorted, nlive, sizeof sorted[0], cmp_alloc);
    for (size_t i = 1; i < nlive; i++)
        CHECK(sorted[i - 1].p + sorted[i - 1].n <= sorted[i].p,
              "[%p, +%zu) overlaps [%p, +%zu)", (void *)sorted[i - 1].p,
              sorted[i - 1].n, (void *)sorted[i].p, sorted[i].n);
}

static void add(const struct uvas_range_desc *d, char *p, size_t n,
                unsigned hints, size_t align)
{
    CHECK(nlive < MAXA, "too many allocations");
    struct alloc a = {p, n, hints};
    check_one(d, &a, align);
    live[nlive++] = a;
}

static void run(size_t block_size)
{
    struct uvas_options o = {0};
    o.size = (size_t)4 << 30;
    o.block_size = block_size;
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_range();
    size_t bs = d.block_size;
    nlive = 0;

    /* A spread of sizes around the interesting thresholds. */
    const size_t sizes[] = {1, 2, 15, 16, 17, 31, 48, 100, 255, 256, 1000,
                            bs / 16, bs / 8 - 1, bs / 8, bs / 8 + 1, bs / 4,
                            bs / 2, bs - 1, bs, bs + 1, 2 * bs - 16, 2 * bs,
                            3 * bs + 5, 10 * bs};
    const unsigned hints[] = {0, UVAS_HINT_HOST, UVAS_HINT_DEVICE};
    int rounds = bs >= ((size_t)1 << 20) ? 1 : 3;
    for (int round = 0; round < rounds; round++)
        for (size_t h = 0; h < 3; h++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                size_t n = sizes[i];
                if (n == 0)
                    continue;
                char *p = h == 0 && round == 0
                              ? uvas_malloc(n)
                              : uvas_malloc_hint(n, hints[h]);
                add(&d, p, n, hints[h], 0);
            }
    check_no_overlap();

    /* Aligned allocations. */
    for (size_t align = 16; align <= ((size_t)1 << 21); align <<= 1) {
        const size_t asz[] = {1, 24, bs / 8, bs + 3};
        for (size_t i = 0; i < 4; i++)
            for (size_t h = 0; h < 3; h++) {
                char *p = uvas_aligned_alloc(align, asz[i], hints[h]);
                add(&d, p, asz[i], hints[h], align);
            }
    }
    /* Small alignments are also accepted (the result is still 16-aligned). */
    for (size_t align = 1; align < 16; align <<= 1)
        add(&d, uvas_aligned_alloc(align, 40, 0), 40, 0, align);
    check_no_overlap();

    /* Free every other one, allocate again, still no overlap. */
    size_t kept = 0;
    for (size_t i = 0; i < nlive; i++) {
        if (i % 2) {
            CHECK_OK(uvas_try_free(live[i].p));
            struct uvas_ptr_info info;
            CHECK_STATUS(uvas_query(live[i].p, &info), UVAS_ERR_NOT_OWNED);
        } else {
            live[kept++] = live[i];
        }
    }
    nlive = kept;
    uint64_t seed = 0x1234567 + bs;
    int nrand = bs >= ((size_t)1 << 20) ? 60 : 300;
    for (int i = 0; i < nrand; i++) {
        size_t n = 1 + (size_t)(tu_rand(&seed) % (3 * bs));
        if (i % 3 == 0)
            n = 1 + (size_t)(tu_rand(&seed) % (bs / 8));
        unsigned hh = hints[tu_rand(&seed) % 3];
        add(&d, uvas_malloc_hint(n, hh), n, hh, 0);
    }
    check_no_overlap();

    /* Calloc'd and realloc'd memory follow the same rules. */
    add(&d, uvas_calloc(7, 9), 63, 0, 0);
    add(&d, uvas_calloc(3, bs), 3 * bs, 0, 0);
    check_no_overlap();

    for (size_t i = 0; i < nlive; i++)
        CHECK_OK(uvas_try_free(live[i].p));
    nlive = 0;
    CHECK_OK(uvas_finalize());
}

int main(void)
{
    tu_deadline(55);
    tu_clear_env();
    run(0); /* default block size */
    run(4096);
    run((size_t)2 << 20);
    return 0;
}
