/*
 * munmap and mremap by the user inside the range (docs/fault-path.md,
 * "Process events"). The range's data lives in the memfd, not in the
 * mapping, so uvas handles a user munmap inside the range: the fault
 * service is told (UFFD_EVENT_UNMAP) and maps the hole again at once (the
 * same memfd offsets, the same protection, registered with userfaultfd
 * again). Then, with a warning on stderr:
 *  - the data of host-resident blocks in the hole is still there (a minor
 *    fault maps it), device-resident blocks come back intact, untouched
 *    blocks are still placed on first touch;
 *  - allocations in the hole, first touch and migrations work as before.
 * An access that races the refill (before the fault service has read the
 * event) gets SIGSEGV, as for any unmapped memory: the test waits for the
 * hole to be mapped again. A user mremap that moves range memory away is
 * refused: the moved mapping is removed (its new address gets SIGSEGV,
 * with a warning) and the range is mapped again where it was, data
 * intact. uvas's own remaps of the range (CPU views of device blocks)
 * are not mistaken for the user's (test-cpu-view, test-cpu-view-race).
 */
#include <sys/syscall.h>

#include "process/common.h"

static size_t bs;

static void wait_mapped(void *p, size_t len, const char *what)
{
    CHECK(pe_wait_mapped(p, len, 2000), "%s: [%p, +%zu) is not mapped again after 2 s", what,
          p, len);
}

int main(void)
{
    tu_watchdog(60);
    struct uvas_range_desc d = tu_init_range("1G", "64K");
    bs = d.block_size;
    int dev = d.device_present;
    pe_catch_faults();
    unsigned char v;

    /* 1. Whole blocks and pages inside a block, host-resident. */
    unsigned char *p = uvas_aligned_alloc(bs, 16 * bs, 0);
    CHECK(p != NULL, "uvas_aligned_alloc: %s", uvas_last_error());
    pe_pattern(p, 16 * bs, 1);
    CHECK_EQ(munmap(p + 2 * bs, 2 * bs), 0, "munmap of two blocks");
    CHECK_EQ(munmap(p + 5 * bs + 8192, 3 * 4096), 0, "munmap of pages in a block");
    wait_mapped(p + 2 * bs, 2 * bs, "blocks");
    wait_mapped(p + 5 * bs, bs, "pages");
    long bad = pe_check_pattern(p, 16 * bs, 1);
    CHECK(bad < 0, "host data after munmap: byte %ld", bad);
    tu_expect_blocks(p, 16 * bs, UVAS_RES_HOST, "host blocks after munmap");
    pe_pattern(p, 16 * bs, 2);
    CHECK(pe_check_pattern(p, 16 * bs, 2) < 0, "writable after munmap");

    /* 2. Device-resident blocks in the hole come back intact. */
    if (dev) {
        CHECK_OK(uvas_migrate(p, 16 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_EQ(munmap(p + 8 * bs, 4 * bs), 0, "munmap of device blocks");
        wait_mapped(p + 8 * bs, 4 * bs, "device blocks");
        tu_expect_blocks(p, 16 * bs, UVAS_RES_DEVICE, "device blocks after munmap");
        bad = pe_check_pattern(p, 16 * bs, 2); /* back by CPU faults */
        CHECK(bad < 0, "device data after munmap: byte %ld", bad);
        CHECK_OK(uvas_migrate(p, 16 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(p, 16 * bs, UVAS_LOC_HOST, 0));
        CHECK(pe_check_pattern(p, 16 * bs, 2) < 0, "round trip after munmap");
    }

    /* 3. Untouched blocks in the hole: first touch still places them. */
    unsigned char *u = uvas_aligned_alloc(bs, 8 * bs, 0);
    CHECK(u != NULL, "uvas_aligned_alloc");
    CHECK_EQ(munmap(u, 8 * bs), 0, "munmap of untouched blocks");
    wait_mapped(u, 8 * bs, "untouched");
    struct uvas_stats s0 = tu_stats();
    CHECK(tu_find_not(u, 8 * bs, 0) < 0, "untouched memory reads zero");
    struct uvas_stats s1 = tu_stats();
    CHECK(s1.faults > s0.faults, "first touch after munmap is a userfault (registered)");
    tu_expect_blocks(u, 8 * bs, tu_residence(u), "placed");
    CHECK(tu_residence(u) != UVAS_RES_UNPOPULATED, "placed by the touch");

    /* 4. Freed memory unmapped by the user, then allocated again. */
    unsigned char *f = uvas_aligned_alloc(bs, 4 * bs, 0);
    CHECK(f != NULL, "uvas_aligned_alloc");
    memset(f, 0x6b, 4 * bs);
    uvas_free(f);
    CHECK_EQ(munmap(f, 4 * bs), 0, "munmap of freed blocks");
    wait_mapped(f, 4 * bs, "freed");
    unsigned char *g = uvas_aligned_alloc(bs, 4 * bs, 0);
    CHECK(g != NULL, "uvas_aligned_alloc");
    CHECK(tu_find_not(g, 4 * bs, 0) < 0, "new allocation reads zero");
    memset(g, 0x6c, 4 * bs);
    if (dev) {
        CHECK_OK(uvas_migrate(g, 4 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(g, 4 * bs, UVAS_LOC_HOST, 0));
    }
    CHECK(tu_find_not(g, 4 * bs, 0x6c) < 0, "new allocation's data");

    /* 5. mremap moving range memory out: refused. */
    unsigned char *m = uvas_aligned_alloc(bs, 4 * bs, 0);
    CHECK(m != NULL, "uvas_aligned_alloc");
    pe_pattern(m, 4 * bs, 5);
    unsigned char *dst = mmap(NULL, 4 * bs, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(dst != MAP_FAILED, "mmap");
    void *r = (void *)syscall(SYS_mremap, m + bs, 2 * bs, 2 * bs, MREMAP_MAYMOVE | MREMAP_FIXED,
                              dst);
    CHECK(r == dst, "mremap: %s", strerror(errno));
    wait_mapped(m, 4 * bs, "mremap source");
    bad = pe_check_pattern(m, 4 * bs, 5);
    CHECK(bad < 0, "data at the old place after mremap: byte %ld", bad);
    int sig = 0;
    for (int i = 0; i < 20000 && sig == 0; i++) { /* the removal is asynchronous too */
        sig = pe_try_access(dst, 0, &v);
        if (!sig) {
            struct timespec ts = {.tv_nsec = 100000};
            nanosleep(&ts, NULL);
        }
    }
    CHECK_EQ(sig, SIGSEGV, "the moved mapping is removed");
    pe_pattern(m, 4 * bs, 6);
    CHECK(pe_check_pattern(m, 4 * bs, 6) < 0, "writable after mremap");

    /* 6. A CPU view of a device block (accessed-by-CPU advice) unmapped by
     * the user: the memfd mapping comes back, the data with it. */
    if (dev) {
        unsigned char *c = uvas_aligned_alloc(bs, 2 * bs, 0);
        CHECK(c != NULL, "uvas_aligned_alloc");
        pe_pattern(c, 2 * bs, 7);
        CHECK_OK(uvas_advise(c, 2 * bs, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
        CHECK_OK(uvas_migrate(c, 2 * bs, UVAS_LOC_DEVICE, 0));
        c[5] = c[5]; /* maps the view where the driver offers one */
        CHECK_EQ(munmap(c, bs), 0, "munmap of a CPU view");
        wait_mapped(c, bs, "CPU view");
        bad = pe_check_pattern(c, 2 * bs, 7);
        CHECK(bad < 0, "device data after munmap of its CPU view: byte %ld", bad);
        c[9] = 0x99;
        CHECK_OK(uvas_migrate(c, 2 * bs, UVAS_LOC_HOST, 0));
        CHECK_EQ(c[9], 0x99, "a write after the munmap of the view");
        uvas_free(c);
    }

    /* 7. Everything still works. */
    unsigned char *n = uvas_malloc(2 << 20);
    CHECK(n != NULL, "uvas_malloc");
    memset(n, 0x21, 2 << 20);
    CHECK(tu_find_not(n, 2 << 20, 0x21) < 0, "new allocation");
    CHECK(pe_check_pattern(p, 16 * bs, 2) < 0, "first buffer at the end");
    uvas_free(n);
    uvas_free(m);
    uvas_free(g);
    uvas_free(u);
    uvas_free(p);
    munmap(dst, 4 * bs);
    CHECK_OK(uvas_finalize());
    printf("ok\n");
    return 0;
}
