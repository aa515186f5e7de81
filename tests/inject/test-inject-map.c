/*
 * UVAS_INJECT=map:N: mapping memory between the CPU and the device fails.
 * Device tier needed.
 *  - the CPU view of a device block (accessed-by-CPU advice): the access
 *    that wanted the view migrates the block back instead (the fallback,
 *    with a warning), data intact; the next advised block is mapped as
 *    usual; injected[map] is 1;
 *  - the CPU view cannot be unmapped when its block is freed: the slot
 *    it maps is kept out of use (stats.slots_quarantined 1), other blocks
 *    go on moving with their data;
 *  - the import of host pages for the copy engine: uvas_migrate to the
 *    device returns UVAS_ERR_NOMEM naming the import, the blocks whose
 *    copy could not be set up stay on the host, no byte is lost, and the
 *    retry moves them all (with UVAS_STAGE_FIRST=0: staging would copy
 *    them through its lanes instead).
 */
#include "inject-util.h"

int main(void)
{
    tu_deadline(60);
    /* The import part needs imports on the migration's path: with staging
     * (a GPU's default) a first migration copies through the lanes and the
     * pinner's imports, in the background, would take the injected count
     * at a moment nobody can tell. */
    tu_setenv("TU_SET_UVAS_STAGE_FIRST", "0");
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    size_t bs = d.block_size, len = 4 * bs;
    unsigned char *p = uvas_malloc(len), *q = uvas_malloc(len);
    CHECK(p && q, "uvas_malloc");
    ti_fill(p, len, 13);
    ti_fill(q, len, 14);

    if (strstr(d.device_note, "CPU view of device blocks: none")) {
        printf("  no CPU view on this driver: only the import part runs\n");
    } else {
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_advise(p, 2 * bs, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
        struct uvas_stats s0 = tu_stats();
        ti_arm("map:1");
        ti_verify(p, bs, 13, bs, "block 0 (its CPU view failed)");
        tu_expect_view(p, UVAS_RES_HOST, 0, "block 0 after its CPU view failed");
        for (size_t i = 0; i < bs; i++)
            CHECK(p[bs + i] == ti_pat(bs + i, 13), "block 1 byte %zu", i);
        tu_expect_view(p + bs, UVAS_RES_DEVICE, 1, "block 1 after a CPU access");
        struct uvas_stats s1 = tu_stats();
        CHECK_EQ(s1.injected[UVAS_INJ_MAP], 1, "injected[map]");
        CHECK_EQ(s1.migrations[UVAS_RES_HOST] - s0.migrations[UVAS_RES_HOST], 1,
                 "blocks migrated back instead of mapped");
        ti_verify(p, len, 13, bs, "all of p");
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_HOST, 0));
        ti_verify(p, len, 13, bs, "p back on the host");

        /* A CPU view that cannot be unmapped when its block is freed: the
         * slot it maps is never given to another block. */
        unsigned char *r = uvas_malloc(2 * bs);
        CHECK(r != NULL, "uvas_malloc");
        ti_fill(r, 2 * bs, 15);
        CHECK_OK(uvas_migrate(r, 2 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_advise(r, 2 * bs, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
        ti_verify(r, 2 * bs, 15, bs, "r through its CPU views");
        tu_expect_view(r, UVAS_RES_DEVICE, 1, "r's first block after a CPU access");
        struct uvas_stats s2 = tu_stats();
        ti_arm("map:1");
        uvas_free(r); /* the first block's view stays: its slot is quarantined */
        struct uvas_stats s3 = tu_stats();
        CHECK_EQ(s3.slots_quarantined - s2.slots_quarantined, 1, "stats.slots_quarantined");
        CHECK_EQ(s3.injected[UVAS_INJ_MAP], 1, "injected[map] (CPU view unmap)");
        CHECK_EQ(s3.tier[UVAS_RES_DEVICE].blocks, s2.tier[UVAS_RES_DEVICE].blocks - 2,
                 "device blocks after the free");
        /* Every other slot keeps working: a full round trip of p. */
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
        tu_expect_blocks(p, len, UVAS_RES_DEVICE, "p after the quarantine");
        ti_verify(p, len, 13, bs, "p on the device after the quarantine");
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_HOST, 0));
        ti_verify(p, len, 13, bs, "p back on the host after the quarantine");
        printf("  a CPU view that could not be unmapped: its slot quarantined, p intact\n");
    }

    /* q was never imported: its imports are the next map calls. */
    ti_arm("map:1");
    ti_expect_error(uvas_migrate(q, len, UVAS_LOC_DEVICE, 0), UVAS_ERR_NOMEM, "importing");
    size_t host = ti_count(q, len, UVAS_RES_HOST), dev = ti_count(q, len, UVAS_RES_DEVICE);
    CHECK(host >= 1 && host + dev == 4, "after the failed import: %zu host, %zu device blocks",
          host, dev);
    CHECK_EQ(tu_stats().injected[UVAS_INJ_MAP], 1, "injected[map] (import)");
    printf("  import failed: %zu of 4 blocks stayed on the host\n", host);
    CHECK_OK(uvas_migrate(q, len, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(q, len, UVAS_RES_DEVICE, "q after the retry");
    ti_verify(q, len, 14, bs, "q after the failed import and the retry");
    ti_verify(p, len, 13, bs, "p at the end");
    uvas_free(p);
    uvas_free(q);
    CHECK_OK(uvas_finalize());
    printf("map: the CPU view falls back to migrating, a failed import leaves blocks home\n");
    return 0;
}
