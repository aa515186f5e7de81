/*
 * mprotect by the user on range memory (docs/fault-path.md, "Process
 * events"). The user's protection is the user's: a write to a PROT_READ
 * page, or any access to a PROT_NONE page, gets SIGSEGV, whatever the
 * block's residence. uvas's own work is not blocked by it: migrations
 * read and write the pages through the memfd, not through the user's
 * mapping, so a block with protected pages moves to the device and back
 * with its data intact, and pages brought back keep the user's
 * protection. Lifting the protection makes everything accessible again.
 * An untouched block under PROT_READ is placed by a read (zero), and a
 * block split by the protection of one page is placed whole.
 */
#include "process/common.h"

static size_t bs;

int main(void)
{
    tu_watchdog(60);
    struct uvas_range_desc d = tu_init_range("1G", "64K");
    bs = d.block_size;
    int dev = d.device_present;
    pe_catch_faults();
    unsigned char v;

    unsigned char *p = uvas_aligned_alloc(bs, 8 * bs, 0);
    CHECK(p != NULL, "uvas_aligned_alloc: %s", uvas_last_error());
    pe_pattern(p, 8 * bs, 1);
    unsigned char *ro = p + bs + 4096, *none = p + 3 * bs;
    size_t ro_len = 2 * 4096, none_len = bs + 8192;
    CHECK_EQ(mprotect(ro, ro_len, PROT_READ), 0, "mprotect PROT_READ");
    CHECK_EQ(mprotect(none, none_len, PROT_NONE), 0, "mprotect PROT_NONE");

    for (int round = 0; round < (dev ? 3 : 1); round++) {
        if (dev) {
            int rc = uvas_migrate(p, 8 * bs, UVAS_LOC_DEVICE, 0);
            CHECK_OK(rc);
            tu_expect_blocks(p, 8 * bs, UVAS_RES_DEVICE, "protected blocks moved");
            if (round == 1)
                CHECK_OK(uvas_migrate(p, 8 * bs, UVAS_LOC_HOST, 0));
            /* round 0 and 2: brought back by CPU faults below */
        }
        v = 0;
        CHECK_EQ(pe_try_access(ro, 0, &v), 0, "read of a PROT_READ page");
        CHECK_EQ(v, ro[0], "value");
        v = 0x11;
        CHECK_EQ(pe_try_access(ro + 5, 1, &v), SIGSEGV, "write to a PROT_READ page");
        CHECK_EQ(pe_try_access(none + 7, 0, &v), SIGSEGV, "read of a PROT_NONE page");
        CHECK_EQ(pe_try_access(none + none_len - 1, 1, &v), SIGSEGV,
                 "write to a PROT_NONE page");
        /* the unprotected rest of the blocks works and holds the data */
        long bad = pe_check_pattern(p, bs, 1);
        CHECK(bad < 0, "unprotected block: byte %ld", bad);
        CHECK_EQ(pe_try_access(p + 6 * bs, 1, &v), 0, "write to an unprotected page");
        p[6 * bs] = (unsigned char)((6 * bs * 131u + 7u + ((6 * bs) >> 12)) | 1u);
    }

    CHECK_EQ(mprotect(p, 8 * bs, PROT_READ | PROT_WRITE), 0, "mprotect back");
    long bad = pe_check_pattern(p, 8 * bs, 1);
    CHECK(bad < 0, "data after lifting the protection: byte %ld", bad);
    pe_pattern(p, 8 * bs, 2);
    if (dev) {
        CHECK_OK(uvas_migrate(p, 8 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(p, 8 * bs, UVAS_LOC_HOST, 0));
    }
    CHECK(pe_check_pattern(p, 8 * bs, 2) < 0, "round trip after the protection");

    /* An untouched block under PROT_READ: a read places it. */
    unsigned char *u = uvas_aligned_alloc(bs, 2 * bs, 0);
    CHECK(u != NULL, "uvas_aligned_alloc");
    CHECK_EQ(mprotect(u, 2 * bs, PROT_READ), 0, "mprotect");
    CHECK_EQ(pe_try_access(u + 10, 0, &v), 0, "read of an untouched PROT_READ block");
    CHECK_EQ(v, 0, "reads zero");
    CHECK(tu_residence(u) != UVAS_RES_UNPOPULATED, "placed by the read");
    CHECK_EQ(pe_try_access(u + 10, 1, &v), SIGSEGV, "write to it");
    if (dev) {
        CHECK_OK(uvas_migrate(u, 2 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(u, 2 * bs, UVAS_LOC_HOST, 0));
    }
    CHECK_EQ(mprotect(u, 2 * bs, PROT_READ | PROT_WRITE), 0, "mprotect back");
    u[10] = 9;
    CHECK_EQ(u[10], 9, "writable again");
    uvas_free(u);

    /* An untouched block with one page PROT_READ: a write elsewhere in it
     * places the whole block (the fill crosses the split mapping). */
    unsigned char *w = uvas_aligned_alloc(bs, bs, 0);
    CHECK(w != NULL, "uvas_aligned_alloc");
    CHECK_EQ(mprotect(w + 4096, 4096, PROT_READ), 0, "mprotect one page");
    v = 0x42;
    CHECK_EQ(pe_try_access(w + 3 * 4096, 1, &v), 0, "first touch of a split block");
    CHECK_EQ(w[3 * 4096], 0x42, "value");
    CHECK_EQ(pe_try_access(w + 4096, 0, &v), 0, "read of its PROT_READ page");
    CHECK_EQ(v, 0, "reads zero");
    CHECK_EQ(pe_try_access(w + 4096, 1, &v), SIGSEGV, "write to its PROT_READ page");
    CHECK(tu_find_not(w + 8192, bs - 8192, 0) == 4096, "the rest of the block");
    uvas_free(w);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    printf("ok\n");
    return 0;
}
