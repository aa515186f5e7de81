/*
 * madvise by the user on range memory (docs/fault-path.md, "Process
 * events").
 *  - MADV_DONTNEED on host-resident blocks (whole and in part): the range
 *    is a MAP_SHARED memfd mapping, so the pages stay in the memfd; the
 *    next access is a minor fault that maps them back. Data intact.
 *  - MADV_DONTNEED on device-resident and untouched blocks: nothing there
 *    is mapped; nothing breaks, the data comes back intact (untouched
 *    memory still reads zero).
 *  - MADV_REMOVE punches the memfd: the data is gone, as asked. uvas's
 *    state stays consistent: a host block reads zero where punched (the
 *    next access is a missing fault on a host-resident block, served),
 *    can be written, and then moves to the device and back with the new
 *    data (not a stale copy of the punched pages). On a device-resident
 *    block the device copy is the data: no hang, no crash, and the block
 *    comes back with it.
 */
#include "process/common.h"

#include <stdlib.h>
#include <string.h>

#include "uvas_policy.h"

static size_t bs;

static unsigned char *alloc_pattern(size_t n, unsigned seed)
{
    unsigned char *p = uvas_aligned_alloc(bs, n, 0);
    CHECK(p != NULL, "uvas_aligned_alloc: %s", uvas_last_error());
    pe_pattern(p, n, seed);
    return p;
}

int main(void)
{
    tu_watchdog(60);
    struct uvas_range_desc d = tu_init_range("1G", "64K");
    bs = d.block_size;
    int dev = d.device_present;
    if (!dev)
        printf("no device tier (%s): host cases only\n", d.device_note);

    /* DONTNEED, host blocks: whole blocks and a few pages inside one. */
    unsigned char *h = alloc_pattern(8 * bs, 1);
    CHECK_EQ(madvise(h, 2 * bs, MADV_DONTNEED), 0, "madvise DONTNEED");
    CHECK_EQ(madvise(h + 3 * bs + 8192, 8192, MADV_DONTNEED), 0, "madvise DONTNEED (pages)");
    long bad = pe_check_pattern(h, 8 * bs, 1);
    CHECK(bad < 0, "host data after MADV_DONTNEED: byte %ld", bad);
    tu_expect_blocks(h, 8 * bs, UVAS_RES_HOST, "host blocks after MADV_DONTNEED");
    pe_pattern(h, 8 * bs, 11); /* and writable */
    CHECK(pe_check_pattern(h, 8 * bs, 11) < 0, "rewrite");

    /* DONTNEED, untouched blocks: still zero, placed on touch. */
    unsigned char *u = uvas_aligned_alloc(bs, 4 * bs, 0);
    CHECK(u != NULL, "uvas_aligned_alloc");
    CHECK_EQ(madvise(u, 4 * bs, MADV_DONTNEED), 0, "madvise DONTNEED untouched");
    CHECK_EQ(tu_residence(u), UVAS_RES_UNPOPULATED, "still untouched");
    CHECK(tu_find_not(u, 4 * bs, 0) < 0, "untouched memory reads zero");

    if (dev) {
        /* DONTNEED, device blocks. */
        unsigned char *g = alloc_pattern(8 * bs, 2);
        CHECK_OK(uvas_migrate(g, 8 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_EQ(madvise(g, 8 * bs, MADV_DONTNEED), 0, "madvise DONTNEED device");
        tu_expect_blocks(g, 8 * bs, UVAS_RES_DEVICE, "device blocks after DONTNEED");
        CHECK_OK(uvas_migrate(g, 8 * bs, UVAS_LOC_HOST, 0));
        CHECK(pe_check_pattern(g, 8 * bs, 2) < 0, "device data after DONTNEED");
        /* and read back by a CPU fault instead of a migration */
        CHECK_OK(uvas_migrate(g, 8 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_EQ(madvise(g + bs, bs, MADV_DONTNEED), 0, "madvise DONTNEED device");
        CHECK(pe_check_pattern(g, 8 * bs, 2) < 0, "device data read by faults");
        uvas_free(g);
    }

    /* REMOVE, host blocks: the punched part reads zero, the rest stays. */
    unsigned char *r = alloc_pattern(4 * bs, 3);
    if (dev) { /* a block that migrated before: its host pages were imported */
        CHECK_OK(uvas_migrate(r, 4 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(r, 4 * bs, UVAS_LOC_HOST, 0));
        CHECK(pe_check_pattern(r, 4 * bs, 3) < 0, "round trip before MADV_REMOVE");
    }
    CHECK(madvise(r + bs, bs, MADV_REMOVE) == 0, "madvise REMOVE: %s", strerror(errno));
    CHECK(tu_find_not(r + bs, bs, 0) < 0, "punched block reads zero");
    CHECK(pe_check_pattern(r, bs, 3) < 0, "block before the punch");
    tu_expect_blocks(r, 4 * bs, UVAS_RES_HOST, "host blocks after MADV_REMOVE");
    pe_pattern(r + bs, bs, 33); /* new data in the punched block */
    CHECK(pe_check_pattern(r + bs, bs, 33) < 0, "rewrite after MADV_REMOVE");
    if (dev) { /* the new data moves, not the punched pages */
        CHECK_OK(uvas_migrate(r, 4 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(r, 4 * bs, UVAS_LOC_HOST, 0));
        bad = pe_check_pattern(r + bs, bs, 33);
        CHECK(bad < 0, "data written after MADV_REMOVE, after a round trip: byte %ld is "
              "0x%02x", bad, bad < 0 ? 0 : r[bs + (size_t)bad]);
        CHECK(pe_check_pattern(r, bs, 3) < 0, "other block after a round trip");
    }

    if (dev) {
        /* REMOVE of a host block whose import is cached, untouched until
         * the next migration: the punch is honoured on the way out (zeros
         * go to the device, not the pinned old pages), and what the device
         * writes meanwhile lands in pages the range maps on the way back. */
        unsigned char *q = alloc_pattern(2 * bs, 5);
        unsigned char *keep = malloc(bs);
        CHECK(keep != NULL, "malloc");
        memcpy(keep, q + bs, bs);
        CHECK_OK(uvas_migrate(q, 2 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(q, 2 * bs, UVAS_LOC_HOST, 0));
        CHECK_EQ(madvise(q, bs, MADV_REMOVE), 0, "madvise REMOVE, untouched after");
        CHECK_OK(uvas_migrate(q, 2 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_device_access(q + bs / 2, bs / 2, 0, 0));
        CHECK_OK(uvas_migrate(q, 2 * bs, UVAS_LOC_HOST, 0));
        CHECK(tu_find_not(q, bs / 2, 0) < 0, "punched half the device only read reads zero");
        CHECK_OK(uvas_migrate(q, 2 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_device_access(q, bs, 1, 0xab));
        CHECK_OK(uvas_migrate(q, 2 * bs, UVAS_LOC_HOST, 0));
        CHECK(tu_find_not(q, bs, 0xab) < 0, "device write to a punched block, after the way back");
        CHECK(memcmp(q + bs, keep, bs) == 0, "untouched neighbour of the punch");
        free(keep);
        uvas_free(q);

        /* REMOVE, device blocks: the device copy is the data. */
        unsigned char *g = alloc_pattern(4 * bs, 4);
        CHECK_OK(uvas_migrate(g, 4 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_EQ(madvise(g, 4 * bs, MADV_REMOVE), 0, "madvise REMOVE device");
        tu_expect_blocks(g, 4 * bs, UVAS_RES_DEVICE, "device blocks after REMOVE");
        bad = pe_check_pattern(g, 4 * bs, 4); /* brought back by faults */
        CHECK(bad < 0, "device data after MADV_REMOVE of its shadow: byte %ld", bad);
        pe_pattern(g, 4 * bs, 44);
        CHECK_OK(uvas_migrate(g, 4 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(g, 4 * bs, UVAS_LOC_HOST, 0));
        CHECK(pe_check_pattern(g, 4 * bs, 44) < 0, "round trip after REMOVE");
        uvas_free(g);
    }
    uvas_free(h);
    uvas_free(u);
    uvas_free(r);
    CHECK_OK(uvas_finalize());
    printf("ok\n");
    return 0;
}
