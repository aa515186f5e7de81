/*
 * Zero fill: memory never touched reads zero (small and large allocations,
 * every byte); uvas_calloc memory reads zero even when it reuses freed
 * memory that was written (small sizes that share blocks, and large ones),
 * over many rounds. Run for the default block size and 4K blocks.
 */
#include "check.h"

static void run(size_t block_size)
{
    struct uvas_options o = {0};
    o.size = (size_t)512 << 20;
    o.block_size = block_size;
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_range();
    size_t bs = d.block_size;

    /* Fresh memory reads zero, every byte. */
    const size_t sizes[] = {1, 16, 100, bs / 8, bs / 8 + 1, bs, 3 * bs + 17,
                            (size_t)1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *p = uvas_malloc(sizes[i]);
        CHECK(p != NULL, "uvas_malloc(%zu) failed", sizes[i]);
        long bad = tu_find_not(p, sizes[i], 0);
        CHECK(bad < 0, "fresh allocation of %zu: byte %ld is 0x%02x", sizes[i],
              bad, bad >= 0 ? p[bad] : 0);
        unsigned char *h = uvas_malloc_hint(sizes[i], UVAS_HINT_HOST);
        CHECK(h != NULL, "uvas_malloc_hint(%zu, HOST) failed", sizes[i]);
        bad = tu_find_not(h, sizes[i], 0);
        CHECK(bad < 0, "fresh HOST allocation of %zu: byte %ld not zero",
              sizes[i], bad);
        /* Leave them allocated: the next ones are fresh too. */
    }

    /* calloc reuses written memory and still reads zero. */
    const size_t csizes[] = {8, 24, 64, 200, bs / 8, bs / 2, bs, 2 * bs + 8};
    for (int round = 0; round < 6; round++) {
        for (size_t i = 0; i < sizeof csizes / sizeof csizes[0]; i++) {
            size_t n = csizes[i];
            enum { K = 16 };
            unsigned char *v[K];
            for (int k = 0; k < K; k++) {
                v[k] = uvas_malloc(n);
                CHECK(v[k] != NULL, "uvas_malloc(%zu) failed", n);
                memset(v[k], 0xa5, n);
            }
            for (int k = 0; k < K; k++)
                CHECK_OK(uvas_try_free(v[k]));
            for (int k = 0; k < K; k++) {
                v[k] = uvas_calloc(1, n);
                CHECK(v[k] != NULL, "uvas_calloc(1, %zu) failed", n);
                long bad = tu_find_not(v[k], n, 0);
                CHECK(bad < 0, "round %d: uvas_calloc(1, %zu) #%d: byte %ld "
                      "is 0x%02x", round, n, k, bad, bad >= 0 ? v[k][bad] : 0);
                memset(v[k], 0x5a, n);
            }
            for (int k = 0; k < K; k++)
                CHECK_OK(uvas_try_free(v[k]));
            /* calloc with nmemb > 1 on the same (dirty) memory */
            unsigned char *c = uvas_calloc(n < 4 ? 1 : 4, n < 4 ? n : n / 4);
            CHECK(c != NULL, "uvas_calloc failed");
            size_t cn = n < 4 ? n : 4 * (n / 4);
            long bad = tu_find_not(c, cn, 0);
            CHECK(bad < 0, "uvas_calloc(4, %zu): byte %ld not zero", n / 4,
                  bad);
            CHECK_OK(uvas_try_free(c));
        }
    }
    CHECK_OK(uvas_finalize());
}

int main(void)
{
    tu_deadline(55);
    tu_clear_env();
    run(0);
    run(4096);
    return 0;
}
