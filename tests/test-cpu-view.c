/*
 * Accessed-by-CPU advice: a CPU access to a device-resident block maps the
 * device memory at the block's address instead of migrating it. Reads and
 * writes then reach the device copy (no migration, no further faults);
 * the kernel can read it too; migrating the block back carries the CPU's
 * writes; unsetting the advice unmaps the view; freeing a mapped block
 * leaves no device mapping behind.
 */
#include "check.h"

int main(void)
{
    tu_deadline(40);
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    if (strstr(d.device_note, "CPU view of device blocks: none"))
        SKIP("the driver offers no CPU mapping of device memory: %s", d.device_note);
    size_t bs = d.block_size, len = 4 * bs;
    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    for (size_t i = 0; i < len; i++)
        p[i] = (unsigned char)(i * 5 + 1);
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
    CHECK_OK(uvas_advise(p, 2 * bs, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
    struct uvas_stats s0 = tu_stats();

    /* Reads and writes of advised blocks stay on the device. */
    for (size_t i = 0; i < 2 * bs; i++)
        CHECK(p[i] == (unsigned char)(i * 5 + 1), "read through the CPU view, byte %zu", i);
    memset(p + 100, 0x77, 50);
    memset(p + bs + 7, 0x66, 9);
    tu_expect_view((char *)p, UVAS_RES_DEVICE, 1, "block 0 after CPU reads and writes");
    tu_expect_view((char *)p + bs, UVAS_RES_DEVICE, 1, "block 1 after CPU reads and writes");
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.migrations[UVAS_RES_HOST], s0.migrations[UVAS_RES_HOST],
             "blocks moved back by accesses through a CPU view");
    CHECK(s1.faults - s0.faults <= 2, "a mapped block keeps faulting (%llu faults)",
          (unsigned long long)(s1.faults - s0.faults));

    /* An unadvised block migrates as usual. */
    CHECK(p[2 * bs] == (unsigned char)(2 * bs * 5 + 1), "block 2 data");
    tu_expect_view((char *)p + 2 * bs, UVAS_RES_HOST, 0, "unadvised block after a CPU read");

    /* The kernel reads through the view. */
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    CHECK(write(fds[1], p + 100, 50) == 50, "write(2) from a CPU view: %s", strerror(errno));
    unsigned char got[50];
    CHECK(read(fds[0], got, 50) == 50, "read back");
    CHECK(tu_find_not(got, 50, 0x77) < 0, "write(2) from a CPU view sent the device's bytes");
    close(fds[0]);
    close(fds[1]);

    /* Migrating back carries the CPU's writes and unmaps the view. */
    CHECK_OK(uvas_migrate(p, bs, UVAS_LOC_HOST, 0));
    tu_expect_view((char *)p, UVAS_RES_HOST, 0, "block 0 migrated back");
    for (size_t i = 0; i < bs; i++) {
        unsigned char want = i >= 100 && i < 150 ? 0x77 : (unsigned char)(i * 5 + 1);
        CHECK(p[i] == want, "block 0 byte %zu after the way back", i);
    }

    /* Unsetting the advice unmaps; the next access migrates. */
    tu_expect_view((char *)p + bs, UVAS_RES_DEVICE, 1, "block 1 before the unset");
    CHECK_OK(uvas_advise(p, 2 * bs, UVAS_ADVISE_UNSET_ACCESSED_BY_CPU, 0));
    tu_expect_view((char *)p + bs, UVAS_RES_DEVICE, 0, "block 1 after the unset");
    CHECK(p[bs + 7] == 0x66 && p[bs + 16] == (unsigned char)((bs + 16) * 5 + 1),
          "block 1 data after the unset");
    tu_expect_view((char *)p + bs, UVAS_RES_HOST, 0, "block 1 touched after the unset");

    /* Freeing a mapped block leaves no device mapping behind. */
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
    CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
    CHECK(p[3 * bs] == (unsigned char)(3 * bs * 5 + 1), "block 3 through a view");
    tu_expect_view((char *)p + 3 * bs, UVAS_RES_DEVICE, 1, "block 3 mapped");
    uvas_free(p);
    unsigned char *q = uvas_malloc(len);
    CHECK(q == p, "the same address again (%p, %p)", (void *)q, (void *)p);
    CHECK_EQ(tu_residence(q + 3 * bs), UVAS_RES_UNPOPULATED, "re-allocated block 3");
    CHECK(tu_find_not(q, len, 0) < 0, "re-allocated memory reads zero");
    tu_expect_view((char *)q + 3 * bs, UVAS_RES_HOST, 0, "re-allocated block 3 after a read");
    uvas_free(q);
    CHECK_OK(uvas_finalize());
    return 0;
}
