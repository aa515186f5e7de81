/*
 * uvas_query_range and uvas_residency_map (uffd mode): per-residence block
 * counts and one residence byte per block for [ptr, ptr+len), which must
 * lie inside the range (allocated or not); partial blocks at both ends
 * count; len 0 → UVAS_ERR_INVAL; outside or crossing the end of the range
 * → UVAS_ERR_NOT_OWNED; a map too small → UVAS_ERR_INVAL with *nblocks set.
 */
#include "check.h"

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;
    const size_t nb = 8;
    struct uvas_range_info ri;

    unsigned char *p = uvas_malloc(nb * bs);
    CHECK(p != NULL, "uvas_malloc");
    CHECK((uintptr_t)p % bs == 0, "not block aligned");

    memset(&ri, 0xee, sizeof ri);
    CHECK_OK(uvas_query_range(p, nb * bs, &ri));
    CHECK_EQ(ri.block_size, bs, "block_size");
    CHECK_EQ(ri.blocks[UVAS_RES_UNPOPULATED], nb, "unpopulated");
    CHECK_EQ(ri.blocks[UVAS_RES_HOST], 0, "host");
    CHECK_EQ(ri.blocks[UVAS_RES_DEVICE], 0, "device");

    /* Touch blocks 0, 3 (read) and 7 (write). */
    tu_write_byte(p + 10, 1);
    CHECK(tu_read_byte(p + 3 * bs + bs / 2) == 0, "not zero");
    tu_write_byte(p + 8 * bs - 1, 2);
    CHECK_OK(uvas_query_range(p, nb * bs, &ri));
    CHECK_EQ(ri.blocks[UVAS_RES_HOST], 3, "host after touching 3 blocks");
    CHECK_EQ(ri.blocks[UVAS_RES_UNPOPULATED], 5, "unpopulated after touching");
    CHECK_EQ(ri.blocks[UVAS_RES_DEVICE], 0, "device");

    /* Partial blocks: [p + bs - 1, +2) covers blocks 0 and 1. */
    CHECK_OK(uvas_query_range(p + bs - 1, 2, &ri));
    CHECK_EQ(ri.blocks[UVAS_RES_HOST], 1, "host in blocks 0..1");
    CHECK_EQ(ri.blocks[UVAS_RES_UNPOPULATED], 1, "unpopulated in blocks 0..1");
    /* One byte: one block. */
    CHECK_OK(uvas_query_range(p + 3 * bs + 7, 1, &ri));
    CHECK(ri.blocks[UVAS_RES_HOST] == 1 && ri.blocks[UVAS_RES_UNPOPULATED] == 0,
          "single byte in block 3: host %zu unpopulated %zu",
          ri.blocks[UVAS_RES_HOST], ri.blocks[UVAS_RES_UNPOPULATED]);
    /* [p + 2bs + 1, p + 7bs + 1) covers blocks 2..7: 3 and 7 are HOST. */
    CHECK_OK(uvas_query_range(p + 2 * bs + 1, 5 * bs, &ri));
    CHECK(ri.blocks[UVAS_RES_HOST] == 2 &&
              ri.blocks[UVAS_RES_UNPOPULATED] == 4,
          "blocks 2..7: host %zu unpopulated %zu (expected 2, 4)",
          ri.blocks[UVAS_RES_HOST], ri.blocks[UVAS_RES_UNPOPULATED]);

    /* Unallocated parts of the range can be queried: unpopulated. */
    char *top = (char *)d.base + d.size - 4 * bs;
    CHECK_OK(uvas_query_range(top, 4 * bs, &ri));
    CHECK_EQ(ri.blocks[UVAS_RES_UNPOPULATED], 4, "unallocated blocks");
    CHECK_OK(uvas_query_range(d.base, d.size, &ri));
    CHECK_EQ(ri.blocks[UVAS_RES_HOST] + ri.blocks[UVAS_RES_UNPOPULATED] +
                 ri.blocks[UVAS_RES_DEVICE],
             d.size / bs, "blocks of the whole range");
    CHECK_EQ(ri.blocks[UVAS_RES_HOST], 3, "host blocks in the whole range");

    /* Errors. */
    CHECK_STATUS(uvas_query_range(p, 0, &ri), UVAS_ERR_INVAL);
    int local;
    CHECK_STATUS(uvas_query_range(&local, sizeof local, &ri),
                 UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query_range((char *)d.base - bs, bs, &ri),
                 UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query_range((char *)d.base - 1, 2, &ri),
                 UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query_range((char *)d.base + d.size - bs, 2 * bs, &ri),
                 UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query_range((char *)d.base + d.size, 1, &ri),
                 UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query_range(p, SIZE_MAX, &ri), UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query_range(p, SIZE_MAX - (uintptr_t)p + 1, &ri),
                 UVAS_ERR_NOT_OWNED);

    /* The residency map. */
    uint8_t map[16];
    size_t nblocks = 0;
    memset(map, 0xee, sizeof map);
    CHECK_OK(uvas_residency_map(p, nb * bs, map, nb, &nblocks));
    CHECK_EQ(nblocks, nb, "nblocks");
    for (size_t i = 0; i < nb; i++) {
        int want = (i == 0 || i == 3 || i == 7) ? UVAS_RES_HOST
                                                 : UVAS_RES_UNPOPULATED;
        CHECK(map[i] == want, "map[%zu] = %u, expected %d", i, map[i], want);
    }
    CHECK(map[nb] == 0xee, "map written past nblocks");
    /* Larger buffer than needed is fine. */
    nblocks = 0;
    CHECK_OK(uvas_residency_map(p + bs - 1, 2, map, sizeof map, &nblocks));
    CHECK_EQ(nblocks, 2, "nblocks for a 2-byte span over a boundary");
    CHECK(map[0] == UVAS_RES_HOST && map[1] == UVAS_RES_UNPOPULATED,
          "map of blocks 0..1: %u %u", map[0], map[1]);
    /* Too small: INVAL, *nblocks still set. */
    nblocks = 0;
    CHECK_STATUS(uvas_residency_map(p, nb * bs, map, nb - 1, &nblocks),
                 UVAS_ERR_INVAL);
    CHECK_EQ(nblocks, nb, "nblocks reported with a too small map");
    nblocks = 0;
    CHECK_STATUS(uvas_residency_map(p, nb * bs, map, 0, &nblocks),
                 UVAS_ERR_INVAL);
    CHECK_EQ(nblocks, nb, "nblocks reported with n = 0");
    CHECK_STATUS(uvas_residency_map(p, 0, map, sizeof map, &nblocks),
                 UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_residency_map(&local, 4, map, sizeof map, &nblocks),
                 UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_residency_map((char *)d.base + d.size - bs, 2 * bs, map,
                                    sizeof map, &nblocks),
                 UVAS_ERR_NOT_OWNED);

    /* Querying does not populate. */
    CHECK_OK(uvas_query_range(p, nb * bs, &ri));
    CHECK_EQ(ri.blocks[UVAS_RES_HOST], 3, "host after the queries");

    CHECK_OK(uvas_try_free(p));
    CHECK_OK(uvas_finalize());
    return 0;
}
