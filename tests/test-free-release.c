/*
 * Freeing an allocation that covers whole touched blocks returns their
 * memory (uffd mode): stats.blocks_released grows by the number of blocks,
 * tier[HOST].bytes_current and .blocks drop back, the blocks report
 * UVAS_RES_UNPOPULATED again; allocating the same size again right after
 * gives the same address, which reads zero and is unpopulated until touched.
 * Run for the default block size, 4K and 2M.
 */
#include "check.h"

static void run(size_t block_size)
{
    struct uvas_options o = {0};
    o.size = (size_t)256 << 20;
    o.block_size = block_size;
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;
    const size_t nb = 6;

    for (int round = 0; round < 3; round++) {
        struct uvas_stats s0 = tu_stats();
        unsigned char *p = uvas_malloc(nb * bs);
        CHECK(p != NULL, "uvas_malloc(%zu) failed", nb * bs);
        CHECK((uintptr_t)p % bs == 0, "%p not block aligned", (void *)p);

        struct uvas_range_info ri;
        CHECK_OK(uvas_query_range(p, nb * bs, &ri));
        CHECK_EQ(ri.blocks[UVAS_RES_UNPOPULATED], nb,
                 "unpopulated blocks before touching");

        /* Touch every block: write a pattern. */
        memset(p, 0x77 + round, nb * bs);
        CHECK_OK(uvas_query_range(p, nb * bs, &ri));
        CHECK_EQ(ri.blocks[UVAS_RES_HOST], nb, "host blocks after touching");
        struct uvas_stats s1 = tu_stats();
        CHECK_EQ(s1.tier[UVAS_RES_HOST].bytes_current -
                     s0.tier[UVAS_RES_HOST].bytes_current,
                 nb * bs, "host bytes_current growth after touching");

        CHECK_OK(uvas_try_free(p));
        struct uvas_stats s2 = tu_stats();
        CHECK(s2.blocks_released >= s1.blocks_released + nb,
              "round %d, bs %zu: blocks_released %llu -> %llu, expected +%zu",
              round, bs, (unsigned long long)s1.blocks_released,
              (unsigned long long)s2.blocks_released, nb);
        CHECK_EQ(s2.tier[UVAS_RES_HOST].bytes_current,
                 s0.tier[UVAS_RES_HOST].bytes_current,
                 "host bytes_current after free");
        CHECK_EQ(s2.tier[UVAS_RES_HOST].blocks, s0.tier[UVAS_RES_HOST].blocks,
                 "host blocks after free");
        CHECK_OK(uvas_query_range(p, nb * bs, &ri));
        CHECK_EQ(ri.blocks[UVAS_RES_UNPOPULATED], nb,
                 "unpopulated blocks after free");
        CHECK_EQ(ri.blocks[UVAS_RES_HOST], 0, "host blocks after free");

        /* The same size again: the same address, unpopulated, zero. */
        unsigned char *q = uvas_malloc(nb * bs);
        CHECK(q == p, "round %d: re-allocation at %p, expected %p", round,
              (void *)q, (void *)p);
        CHECK_EQ(tu_residence(q), UVAS_RES_UNPOPULATED,
                 "residence of the re-allocation before touch");
        CHECK_EQ(tu_residence(q + (nb - 1) * bs), UVAS_RES_UNPOPULATED,
                 "residence of the last block before touch");
        long bad = tu_find_not(q, nb * bs, 0);
        CHECK(bad < 0, "round %d, bs %zu: re-allocated memory byte %ld is "
              "0x%02x, expected 0", round, bs, bad, bad >= 0 ? q[bad] : 0);
        CHECK_OK(uvas_query_range(q, nb * bs, &ri));
        CHECK_EQ(ri.blocks[UVAS_RES_HOST], nb, "host blocks after reading");
        CHECK_OK(uvas_try_free(q));
    }

    /* A calloc'd re-allocation of released memory reads zero as well. */
    unsigned char *p = uvas_malloc(nb * bs);
    CHECK(p != NULL, "malloc");
    memset(p, 0xff, nb * bs);
    CHECK_OK(uvas_try_free(p));
    unsigned char *c = uvas_calloc(nb, bs);
    CHECK(c != NULL, "calloc");
    CHECK(tu_find_not(c, nb * bs, 0) < 0, "calloc after release not zero");
    CHECK_OK(uvas_try_free(c));
    CHECK_OK(uvas_finalize());
}

int main(void)
{
    tu_deadline(55);
    tu_clear_env();
    run(0);
    run(4096);
    run((size_t)2 << 20);
    return 0;
}
