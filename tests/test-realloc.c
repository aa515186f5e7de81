/*
 * uvas_realloc keeps the contents (up to the smaller size) and the hints,
 * reports the new requested size, across growth and shrink, between small
 * (block-sharing) and large (block-aligned) sizes; realloc(NULL, n) is
 * malloc; realloc(p, 0) fails with EINVAL and leaves p as it was. A
 * growth in place over the blocks of a freed, larger allocation makes one
 * allocation of the new size: every byte of it is inside (uvas_query names
 * its base and size) and nothing past its end is. The grown blocks named
 * themselves the head and were held to the freed allocation's size there
 * (found by review through shmem_realloc: a put past the grown object's end
 * wrote into the allocation after it).
 */
#include "check.h"

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 9));
}

/* A (4 blocks), B (8), C; B freed; A grown to 6 blocks in place. */
static void grown_over_freed(size_t bs)
{
    char *a = uvas_aligned_alloc(bs, 4 * bs, 0);
    char *b = uvas_aligned_alloc(bs, 8 * bs, 0);
    char *c = uvas_aligned_alloc(bs, bs, 0);
    CHECK(a && b && c, "allocations");
    if (b != a + 4 * bs) {
        printf("the allocations are not side by side here; growth over a freed one not checked\n");
        uvas_free(a), uvas_free(b), uvas_free(c);
        return;
    }
    uvas_free(b);
    char *g = uvas_realloc(a, 6 * bs);
    CHECK(g == a, "a growth into the freed blocks stays in place (%p, was %p)", (void *)g, (void *)a);
    for (size_t off = 0; off < 6 * bs; off += bs / 2) {
        struct uvas_ptr_info info;
        CHECK_OK(uvas_query(g + off, &info));
        CHECK(info.alloc_base == g, "byte %zu of the grown allocation: its base is %p, not %p",
              off, info.alloc_base, (void *)g);
        CHECK(info.alloc_size == 6 * bs, "the grown allocation's size, seen from byte %zu: %zu",
              off, info.alloc_size);
    }
    CHECK_OK(uvas_migrate(g + 5 * bs, bs, UVAS_LOC_HOST, 0));
    tu_expect_refused(uvas_migrate(g + 5 * bs, 2 * bs, UVAS_LOC_HOST, 0), UVAS_ERR_INVAL,
                      "past", "a migration running past the grown allocation's end");
    char *e = uvas_aligned_alloc(bs, 4 * bs, 0); /* into what is left of B */
    CHECK(e != NULL, "uvas_aligned_alloc");
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(g + 5 * bs, &info));
    CHECK(info.alloc_base == g, "after a new allocation beside it, the grown one's base is %p",
          info.alloc_base);
    uvas_free(e);
    uvas_free(g);
    uvas_free(c);
}

/* Host-heap memory is on the host from its allocation: its grown part too,
 * in place or moved (it was left unpopulated, found by review). */
static void host_heap_grown(size_t bs)
{
    char *a = uvas_malloc_hint(2 * bs, UVAS_HINT_HOST);
    CHECK(a != NULL, "uvas_malloc_hint");
    CHECK_EQ(tu_residence(a + bs), UVAS_RES_HOST, "host-heap memory, untouched");
    char *g = uvas_realloc(a, 5 * bs);
    CHECK(g != NULL, "uvas_realloc");
    for (size_t k = 0; k < 5; k++)
        CHECK_EQ(tu_residence(g + k * bs), UVAS_RES_HOST, "grown host-heap memory, untouched");
    uvas_free(g);
}

static void verify(const unsigned char *p, size_t n, unsigned seed,
                   const char *what)
{
    for (size_t i = 0; i < n; i++)
        CHECK(p[i] == (unsigned char)(seed * 131 + i * 7 + (i >> 9)),
              "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, p[i],
              (unsigned char)(seed * 131 + i * 7 + (i >> 9)));
}

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "512M");
    tu_init_env();
    struct uvas_range_desc d = tu_range();
    size_t bs = d.block_size;

    const size_t chain[] = {10, 100, bs / 8, bs / 8 + 1, bs, 3 * bs + 5,
                            3 * bs + 4000, bs + 100, 50, 7, bs + 1, 2 * bs,
                            16};
    const unsigned hints[] = {0, UVAS_HINT_HOST, UVAS_HINT_DEVICE};
    for (int h = 0; h < 3; h++) {
        unsigned char *p = uvas_malloc_hint(chain[0], hints[h]);
        CHECK(p != NULL, "malloc");
        size_t n = chain[0];
        fill(p, n, 1);
        /* A neighbour that must not be disturbed by the reallocations. */
        unsigned char *nb = uvas_malloc_hint(chain[0], hints[h]);
        CHECK(nb != NULL, "malloc");
        memset(nb, 0xee, chain[0]);
        for (size_t i = 1; i < sizeof chain / sizeof chain[0]; i++) {
            size_t m = chain[i];
            char what[96];
            snprintf(what, sizeof what, "hints %u: realloc %zu -> %zu",
                     hints[h], n, m);
            unsigned char *q = uvas_realloc(p, m);
            CHECK(q != NULL, "%s failed: %s", what, uvas_last_error());
            verify(q, n < m ? n : m, (unsigned)i, what);
            if (m > bs / 8)
                CHECK((uintptr_t)q % bs == 0, "%s: %p not block-aligned",
                      what, (void *)q);
            CHECK((uintptr_t)q % 16 == 0, "%s: %p not 16-aligned", what,
                  (void *)q);
            struct uvas_ptr_info info;
            CHECK_OK(uvas_query(q, &info));
            CHECK(info.alloc_base == q, "%s: alloc_base %p", what,
                  info.alloc_base);
            CHECK(info.alloc_size == m, "%s: alloc_size %zu", what,
                  info.alloc_size);
            CHECK(info.alloc_hints == hints[h], "%s: hints %u, expected %u",
                  what, info.alloc_hints, hints[h]);
            /* The old address is no longer an allocation (unless the new
             * one or the neighbour covers it). */
            if (q != p && !(p >= q && p < q + m) &&
                !(p >= nb && p < nb + chain[0])) {
                CHECK_STATUS(uvas_query(p, &info), UVAS_ERR_NOT_OWNED);
            }
            p = q;
            n = m;
            fill(p, n, (unsigned)i + 1);
        }
        CHECK(tu_find_not(nb, chain[0], 0xee) < 0,
              "hints %u: the neighbour allocation was modified", hints[h]);
        CHECK_OK(uvas_try_free(p));
        CHECK_OK(uvas_try_free(nb));
    }

    /* Aligned allocation: realloc keeps the data and the hints. */
    unsigned char *a = uvas_aligned_alloc(4096, 300, UVAS_HINT_HOST);
    CHECK(a != NULL, "aligned_alloc");
    fill(a, 300, 9);
    unsigned char *a2 = uvas_realloc(a, 5 * bs);
    CHECK(a2 != NULL, "realloc of an aligned allocation failed");
    verify(a2, 300, 9, "aligned 300 -> 5 blocks");
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(a2, &info));
    CHECK(info.alloc_hints == UVAS_HINT_HOST, "hints %u", info.alloc_hints);
    CHECK_OK(uvas_try_free(a2));

    /* realloc(NULL, n) == malloc(n); realloc(p, 0) fails, p unchanged. */
    unsigned char *r = uvas_realloc(NULL, 777);
    CHECK(r != NULL, "realloc(NULL, 777)");
    CHECK_OK(uvas_query(r, &info));
    CHECK(info.alloc_size == 777 && info.alloc_hints == 0,
          "realloc(NULL, 777): size %zu hints %u", info.alloc_size,
          info.alloc_hints);
    fill(r, 777, 3);
    CHECK_NULL_ERRNO(uvas_realloc(r, 0), EINVAL);
    verify(r, 777, 3, "after realloc(p, 0)");
    CHECK_OK(uvas_query(r, &info));
    CHECK(info.alloc_base == r && info.alloc_size == 777,
          "after realloc(p, 0): base %p size %zu", info.alloc_base,
          info.alloc_size);
    CHECK_OK(uvas_try_free(r));

    /* Growing untouched memory: the new tail reads zero. */
    unsigned char *u = uvas_malloc(2 * bs);
    CHECK(u != NULL, "malloc");
    u[0] = 0x42;
    unsigned char *u2 = uvas_realloc(u, 6 * bs);
    CHECK(u2 != NULL, "realloc");
    CHECK(u2[0] == 0x42, "first byte lost");
    CHECK(tu_find_not(u2 + 1, 2 * bs - 1, 0) < 0,
          "never-written part of the old allocation is not zero");
    CHECK_OK(uvas_try_free(u2));

    grown_over_freed(d.block_size);
    if (d.fault_mode == UVAS_FAULT_UFFD)
        host_heap_grown(d.block_size);
    CHECK_OK(uvas_finalize());
    return 0;
}
