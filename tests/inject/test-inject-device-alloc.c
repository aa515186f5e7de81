/*
 * UVAS_INJECT=device-alloc:N: the driver refuses device memory
 * (vkAllocateMemory of a 64 MiB slab). Device tier needed.
 *  - device-alloc:1+, every slab from the first (made at uvas_init): init
 *    still works, the tier holds nothing; uvas_migrate to the device
 *    returns UVAS_ERR_NOMEM (as documented for a full tier) and the blocks
 *    stay on the host with their data; UVAS_HINT_DEVICE memory lands on
 *    the host at first touch; injected[device-alloc] counts the refusals
 *    (one, and one more per back-off that passed: see below);
 *  - device-alloc:2, the second slab (a 128 MiB tier: two slabs): a
 *    migration of more than one slab's worth still succeeds by evicting
 *    the least recently migrated blocks to the host (stats.evictions
 *    counts them), the device holds one slab's worth, no byte is lost, and
 *    later migrations work; once the back-off after the refusal (1 s)
 *    has passed, the tier grows again: the whole array fits on the device.
 */
#include "inject-util.h"

int main(void)
{
    tu_deadline(85);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "512M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_setenv("UVAS_DEVICE_SIZE", "128M");
    tu_setenv("UVAS_INJECT", "device-alloc:1+");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    size_t bs = d.block_size;
    CHECK_EQ(ti_injected(UVAS_INJ_DEVICE_ALLOC), 1, "injected[device-alloc] after init");

    size_t len = 8 * bs;
    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    ti_fill(p, len, 7);
    ti_expect_error(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0), UVAS_ERR_NOMEM, "device tier is full");
    tu_expect_blocks(p, len, UVAS_RES_HOST, "blocks the device had no room for");
    ti_verify(p, len, 7, bs, "data after the refused migration");
    unsigned char *q = uvas_malloc_hint(2 * bs, UVAS_HINT_DEVICE);
    CHECK(q != NULL, "uvas_malloc_hint(DEVICE) with no device memory");
    CHECK(tu_find_not(q, 2 * bs, 0) < 0, "fresh device-hinted memory is not zero");
    ti_fill(q, 2 * bs, 8);
    tu_expect_blocks(q, 2 * bs, UVAS_RES_HOST, "device-hinted blocks with no device memory");
    ti_verify(q, 2 * bs, 8, bs, "device-hinted data on the host");
    struct uvas_stats s = tu_stats();
    CHECK_EQ(s.tier[UVAS_RES_DEVICE].blocks, 0, "device-resident blocks");
    CHECK(s.injected[UVAS_INJ_DEVICE_ALLOC] >= 1, "injected[device-alloc] is %llu",
          (unsigned long long)s.injected[UVAS_INJ_DEVICE_ALLOC]);
    uvas_free(p);
    uvas_free(q);
    CHECK_OK(uvas_finalize());

    /* The second slab refused: eviction makes room. */
    tu_setenv("UVAS_INJECT", "device-alloc:2");
    tu_init_env();
    size_t slab_blocks = ((size_t)64 << 20) / bs, extra = 64;
    len = (slab_blocks + extra) * bs;
    p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc(%zu)", len);
    ti_fill(p, len, 9);
    struct uvas_stats s0 = tu_stats();
    double t0 = tu_now_s();
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
    double took = tu_now_s() - t0;
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.injected[UVAS_INJ_DEVICE_ALLOC], 1, "injected[device-alloc]");
    if (took < 1.0) {
        CHECK_EQ(ti_count(p, len, UVAS_RES_DEVICE), slab_blocks, "device blocks (one slab)");
        CHECK_EQ(ti_count(p, len, UVAS_RES_HOST), extra, "blocks evicted to the host");
        CHECK_EQ(s1.evictions - s0.evictions, extra, "stats.evictions");
        CHECK_EQ(s1.tier[UVAS_RES_DEVICE].blocks, slab_blocks, "stats.tier[DEVICE].blocks");
    } else {
        /* The tier asks the driver again 1 s after a refusal
         * (uvas/devtier.c): a migration slower than that (a sanitizer's
         * build on a loaded machine: 1088 blocks of 64 KiB) may find the
         * second slab given and evict fewer blocks, or none. What still
         * holds: every block is on one tier or the other, each eviction
         * one of them. */
        size_t ondev = ti_count(p, len, UVAS_RES_DEVICE);
        CHECK_EQ(ondev + ti_count(p, len, UVAS_RES_HOST), slab_blocks + extra,
                 "blocks on either tier");
        CHECK(ondev >= slab_blocks, "%zu blocks on the device, fewer than a slab", ondev);
        CHECK_EQ(s1.evictions - s0.evictions, slab_blocks + extra - ondev, "stats.evictions");
        printf("  the migration took %.2f s, past the tier's 1 s back-off: the exact split "
               "between the tiers is not checked\n", took);
    }
    printf("  second slab refused: %zu blocks on the device, %llu evicted\n",
           ti_count(p, len, UVAS_RES_DEVICE), (unsigned long long)(s1.evictions - s0.evictions));
    ti_verify(p, len, 9, bs, "data after migrating past the refused slab");
    CHECK_OK(uvas_migrate(p, 8 * bs, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(p, 8 * bs, UVAS_RES_DEVICE, "a later migration");
    ti_verify(p, len, 9, bs, "data after a later migration");
    /* A refusal is not for ever: past the back-off the tier grows again. */
    usleep(1200 * 1000);
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(p, len, UVAS_RES_DEVICE, "the whole array once the tier grew again");
    struct uvas_stats s2 = tu_stats();
    CHECK_EQ(s2.injected[UVAS_INJ_DEVICE_ALLOC], 1, "injected[device-alloc]");
    CHECK_EQ(s2.tier[UVAS_RES_DEVICE].blocks, slab_blocks + extra, "stats.tier[DEVICE].blocks");
    ti_verify(p, len, 9, bs, "data after the tier grew again");
    printf("  after the back-off: the tier grew to two slabs, %zu blocks on the device\n",
           slab_blocks + extra);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    printf("device-alloc: the tier falls back to the host and to eviction, data intact\n");
    return 0;
}
