/*
 * UVAS_INJECT=dma:N: submitting copies to the device (vkQueueSubmit)
 * fails. Device tier needed.
 *  - to the device (dma:1 from the environment, the first submission):
 *    uvas_migrate returns UVAS_ERR_SYS naming vkQueueSubmit; the blocks of
 *    the failed stage stay on the host, the others moved (stats agree);
 *    the retry moves everything;
 *  - back to the host: the blocks of the failed stage stay on the device;
 *    reading them later brings them back intact;
 *  - asynchronous: uvas_migrate_wait returns the error;
 *  - the zero fill of UVAS_HINT_DEVICE memory placed at allocation: the
 *    allocation still succeeds (placed at first touch), reads zero;
 *  - a CPU access to a device block whose copy back fails gets SIGBUS, as
 *    documented for a failed copy (fault/service.c), in a child process;
 *  - injected[dma] counts each; no byte is lost anywhere.
 */
#include "inject-util.h"

static int child_fault(void *arg)
{
    (void)arg;
    struct uvas_range_desc d;
    int st = ti_child_init(&d);
    if (st)
        return st;
    unsigned char *p = uvas_malloc(d.block_size);
    if (!p)
        return 1;
    memset(p, 0x11, d.block_size);
    if (uvas_migrate(p, d.block_size, UVAS_LOC_DEVICE, 0))
        return 1;
    ti_catch_sigbus();
    ti_arm("dma:1");
    unsigned char v = tu_read_byte(p);
    fprintf(stderr, "the access returned 0x%02x instead of SIGBUS\n", v);
    return 1;
}

int main(void)
{
    tu_deadline(80);
    int cs = tu_run_child(child_fault, NULL, 30);

    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_setenv("UVAS_INJECT", "dma:1");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    size_t bs = d.block_size, n = 8, len = n * bs;
    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    ti_fill(p, len, 15);

    /* To the device. */
    struct uvas_stats s0 = tu_stats();
    ti_expect_error(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0), UVAS_ERR_SYS, "vkQueueSubmit");
    size_t host = ti_count(p, len, UVAS_RES_HOST), dev = ti_count(p, len, UVAS_RES_DEVICE);
    CHECK(host >= 1 && host + dev == n, "after the failed copy: %zu host, %zu device", host, dev);
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.injected[UVAS_INJ_DMA], 1, "injected[dma]");
    CHECK_EQ(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE], dev,
             "stats.migrations[DEVICE] against the blocks that moved");
    CHECK_EQ(s1.tier[UVAS_RES_DEVICE].blocks, dev, "stats.tier[DEVICE].blocks");
    printf("  to the device: %zu of %zu blocks stayed on the host\n", host, n);
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(p, len, UVAS_RES_DEVICE, "after the retry");

    /* Back to the host. */
    ti_arm("dma:1");
    ti_expect_error(uvas_migrate(p, len, UVAS_LOC_HOST, 0), UVAS_ERR_SYS, "vkQueueSubmit");
    dev = ti_count(p, len, UVAS_RES_DEVICE);
    CHECK(dev >= 1, "no block stayed on the device after the failed copy back");
    printf("  to the host: %zu of %zu blocks stayed on the device\n", dev, n);
    ti_verify(p, len, 15, bs, "data after the failed copy back");
    tu_settle_blocks(p, len, UVAS_RES_HOST, "after reading everything");

    /* Asynchronous. */
    ti_arm("dma:1");
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, UVAS_MIGRATE_ASYNC));
    ti_expect_error(uvas_migrate_wait(), UVAS_ERR_SYS, "vkQueueSubmit");
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, UVAS_MIGRATE_ASYNC));
    CHECK_OK(uvas_migrate_wait());
    tu_expect_blocks(p, len, UVAS_RES_DEVICE, "after the asynchronous retry");
    CHECK_EQ(tu_stats().injected[UVAS_INJ_DMA], 1, "injected[dma] (async)");

    /* The zero fill of memory placed on the device at allocation. */
    ti_arm("dma:1");
    unsigned char *q = uvas_malloc_hint(2 * bs, UVAS_HINT_DEVICE);
    CHECK(q != NULL, "uvas_malloc_hint(DEVICE) with the zero fill failing");
    CHECK_EQ(tu_stats().injected[UVAS_INJ_DMA], 1, "injected[dma] (fill)");
    CHECK(tu_find_not(q, 2 * bs, 0) < 0, "fresh device-hinted memory is not zero");
    ti_fill(q, 2 * bs, 16);
    ti_verify(q, 2 * bs, 16, bs, "device-hinted data");
    ti_verify(p, len, 15, bs, "p at the end");
    uvas_free(p);
    uvas_free(q);
    CHECK_OK(uvas_finalize());

    CHECK(cs == TI_EXIT_SIGBUS || cs == TU_EXIT_SKIP, "the child touching a device block whose "
          "copy back fails ended with %d, expected SIGBUS (%d)", cs, TI_EXIT_SIGBUS);
    printf("dma: failed copies leave blocks where they were, with their data\n");
    return 0;
}
