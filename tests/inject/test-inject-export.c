/*
 * UVAS_INJECT=export:N: exporting device memory as a descriptor
 * (vkGetMemoryFdKHR) fails. Device tier needed.
 *  - export:1, the first slab's descriptor: init works; the slab is
 *    used for copies (migrations both ways keep the data), but a peer
 *    cannot import it: uvas_devtier_export of a block there fails with
 *    UVAS_ERR_SYS naming the missing descriptor; no CPU view can be made
 *    through it, so a block advised accessed-by-CPU migrates back on a CPU
 *    access instead (the fallback); injected[export] is 1;
 *  - export:2, the second slab's: the first slab exports as usual, the
 *    second does not, and data in both is intact.
 */
#include "inject-util.h"
#include "uvas/internal.h"

static uint32_t slot_of(const void *p)
{
    return uvas_g.bt[uvas_block_index(p)].dev_slot;
}

static int try_export(const void *p)
{
    int fd = -1;
    uint64_t mo, mapo;
    int st = uvas_devtier_export(&uvas_g.devtier, slot_of(p), &fd, &mo, &mapo);
    if (fd >= 0)
        close(fd);
    return st;
}

int main(void)
{
    tu_deadline(85);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "512M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_setenv("UVAS_DEVICE_SIZE", "128M");
    tu_setenv("UVAS_INJECT", "export:1");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    size_t bs = d.block_size, len = 4 * bs;
    CHECK_EQ(ti_injected(UVAS_INJ_EXPORT), 1, "injected[export] after init");
    CHECK(!uvas_g.devtier.fd_mappable, "a slab without a descriptor is said to map by fd");
    printf("  %s\n", d.device_note);

    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    ti_fill(p, len, 11);
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(p, len, UVAS_RES_DEVICE, "blocks in the slab without a descriptor");
    ti_expect_error(try_export(p), UVAS_ERR_SYS, "no exportable descriptor");
    CHECK_OK(uvas_advise(p, bs, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
    struct uvas_stats s0 = tu_stats();
    ti_verify(p, len, 11, bs, "data after a trip to the device");
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(p, &info));
    if (!uvas_g.devtier.dev.placed_map)
        CHECK(info.residence == UVAS_RES_HOST && !info.cpu_mapped, "an advised block with no "
              "way to map it: %s, cpu_mapped %d", uvas_residence_name(info.residence),
              info.cpu_mapped);
    CHECK_EQ(tu_stats().migrations[UVAS_RES_HOST] - s0.migrations[UVAS_RES_HOST],
             info.residence == UVAS_RES_HOST ? 4 : 3, "blocks migrated back by the reads");
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_HOST, 0));
    ti_verify(p, len, 11, bs, "data after more trips");
    uvas_free(p);
    CHECK_OK(uvas_finalize());

    /* The second slab's descriptor fails; the first is fine. */
    tu_setenv("UVAS_INJECT", "export:2");
    tu_init_env();
    size_t slab_blocks = ((size_t)64 << 20) / bs, n = slab_blocks + 4;
    len = n * bs;
    p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    ti_fill(p, len, 12);
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(p, len, UVAS_RES_DEVICE, "blocks over two slabs");
    CHECK_EQ(ti_injected(UVAS_INJ_EXPORT), 1, "injected[export]");
    CHECK_OK(try_export(p));
    ti_expect_error(try_export(p + slab_blocks * bs), UVAS_ERR_SYS, "no exportable descriptor");
    ti_verify(p, len, 12, bs, "data in both slabs");
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    printf("export: slabs without a descriptor still hold data; export says why it cannot\n");
    return 0;
}
