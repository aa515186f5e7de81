/*
 * UVAS_INJECT=memfd:N: growing the host tier's memfd fails.
 *  - at uvas_init (ftruncate of the memfd): uvas_init fails with
 *    UVAS_ERR_SYS naming the memfd; the next uvas_init works;
 *  - on the way back from the device (fallocate of host pages for blocks
 *    placed on the device directly, with no host shadow): uvas_migrate to
 *    the host returns UVAS_ERR_NOMEM naming the block, the blocks stay on
 *    the device with their data (written there through a CPU view where
 *    the driver offers one, zero otherwise), and the next migration
 *    brings them back intact; injected[memfd] counts both;
 *  - a CPU access that needs that growth gets SIGBUS, as shmem's own
 *    failure to grow gives (fault/service.c), in a child process;
 *  - but not when only its read-ahead needs it: a fault whose window
 *    (the faulting block and the next, after its neighbour came back
 *    just before) fails for the next block brings the faulting block
 *    back alone (it got SIGBUS: the window was all or nothing).
 */
#include "inject-util.h"

static int child_fault(void *arg)
{
    (void)arg;
    struct uvas_range_desc d;
    int st = ti_child_init(&d);
    if (st)
        return st;
    unsigned char *p = uvas_malloc_hint(d.block_size, UVAS_HINT_DEVICE);
    if (!p || tu_residence(p) != UVAS_RES_DEVICE)
        return 1;
    ti_catch_sigbus();
    ti_arm("memfd:1");
    unsigned char v = tu_read_byte(p); /* the way back needs host pages */
    fprintf(stderr, "the access returned 0x%02x instead of SIGBUS\n", v);
    return 1;
}

static int child_readahead(void *arg)
{
    (void)arg;
    struct uvas_range_desc d;
    int st = ti_child_init(&d);
    if (st)
        return st;
    size_t bs = d.block_size;
    ti_catch_sigbus();
    /* The window needs the neighbour back within 5 ms: a loaded machine
     * may miss it, so a few tries, each told by the injection's count. */
    for (int attempt = 0; attempt < 5; attempt++) {
        unsigned char *p = uvas_malloc_hint(4 * bs, UVAS_HINT_DEVICE);
        CHECK(p != NULL, "uvas_malloc_hint(DEVICE)");
        tu_expect_blocks(p, 4 * bs, UVAS_RES_DEVICE, "device-hinted blocks");
        (void)tu_read_byte(p); /* block 0 back alone */
        uint64_t i0 = ti_injected(UVAS_INJ_MEMFD);
        ti_arm("memfd:2"); /* block 1's host pages, then block 2's: refused */
        unsigned char v = tu_read_byte(p + bs);
        uint64_t took = ti_injected(UVAS_INJ_MEMFD) - i0;
        ti_arm("");
        CHECK(tu_residence(p + bs) == UVAS_RES_HOST, "the faulting block came back");
        CHECK(v == 0 || !strstr(d.device_note, "CPU view of device blocks: none"),
              "block 1 read 0x%02x", v);
        uvas_free(p);
        if (took == 1) {
            printf("  a read-ahead that failed for its second block: the faulting block came "
                   "back alone (try %d)\n", attempt + 1);
            return 0;
        }
    }
    fprintf(stderr, "SKIP: the read-ahead never took the next block along in five tries "
            "(its neighbour must have come back within 5 ms)\n");
    return TU_EXIT_SKIP;
}

int main(void)
{
    tu_deadline(80);
    int cs = tu_run_child(child_fault, NULL, 30);
    int cr = tu_run_child(child_readahead, NULL, 30);
    CHECK(cr == 0 || cr == TU_EXIT_SKIP, "the child whose fault's read-ahead could not get "
          "host pages ended with %d (%s)", cr,
          cr == TI_EXIT_SIGBUS ? "SIGBUS: the faulting block failed with its read-ahead"
                               : "see its output");

    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_setenv("UVAS_INJECT", "memfd:1");
    ti_expect_error(uvas_init(NULL), UVAS_ERR_SYS, "host tier memfd");
    tu_init_env();
    CHECK_EQ(ti_injected(UVAS_INJ_MEMFD), 1, "injected[memfd] after the failed init");
    struct uvas_range_desc d = tu_range();
    size_t bs = d.block_size;
    unsigned char *h = uvas_malloc(4 * bs);
    CHECK(h != NULL, "uvas_malloc");
    ti_fill(h, 4 * bs, 5);

    if (d.fault_mode != UVAS_FAULT_UFFD || !d.device_present) {
        ti_verify(h, 4 * bs, 5, bs, "host data");
        SKIP("init part passed; no device tier for the fallocate part: %s", d.device_note);
    }
    /* Placed on the device at allocation: no host pages behind them. */
    size_t n = 4, len = n * bs;
    unsigned char *p = uvas_malloc_hint(len, UVAS_HINT_DEVICE);
    CHECK(p != NULL, "uvas_malloc_hint(DEVICE)");
    tu_expect_blocks(p, len, UVAS_RES_DEVICE, "device-hinted blocks");
    bool view = !strstr(d.device_note, "CPU view of device blocks: none");
    unsigned salt = 6;
    if (view) { /* written where they live */
        CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
        ti_fill(p, len, salt);
        tu_expect_blocks(p, len, UVAS_RES_DEVICE, "blocks written through the CPU view");
        CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_UNSET_ACCESSED_BY_CPU, 0));
    }
    struct uvas_stats s0 = tu_stats();
    ti_arm("memfd:1");
    ti_expect_error(uvas_migrate(p, len, UVAS_LOC_HOST, 0), UVAS_ERR_NOMEM,
                    "cannot allocate host pages");
    CHECK_EQ(ti_injected(UVAS_INJ_MEMFD), 1, "injected[memfd]");
    tu_expect_blocks(p, len, UVAS_RES_DEVICE, "blocks after the failed way back");
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.migrations[UVAS_RES_HOST], s0.migrations[UVAS_RES_HOST],
             "blocks counted as migrated by the failed call");
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_HOST, 0)); /* call 2 and on: not injected */
    tu_expect_blocks(p, len, UVAS_RES_HOST, "blocks after the retry");
    CHECK_EQ(tu_stats().migrations[UVAS_RES_HOST], s0.migrations[UVAS_RES_HOST] + n,
             "migrations to the host after the retry");
    if (view) {
        ti_verify(p, len, salt, bs, "data written on the device");
    } else {
        CHECK(tu_find_not(p, len, 0) < 0, "device blocks came back non-zero");
    }
    ti_verify(h, 4 * bs, 5, bs, "host data");
    uvas_free(p);
    uvas_free(h);
    CHECK_OK(uvas_finalize());

    CHECK(cs == TI_EXIT_SIGBUS || cs == TU_EXIT_SKIP, "the child touching a block whose host "
          "pages cannot be allocated ended with %d, expected SIGBUS (%d)", cs, TI_EXIT_SIGBUS);
    printf("memfd: init fails clearly; the way back fails with NOMEM, data kept on the device; "
           "a CPU access gets SIGBUS%s; a failed read-ahead spares its fault%s\n",
           cs == TU_EXIT_SKIP ? " (child skipped)" : "",
           cr == TU_EXIT_SKIP ? " (SKIPPED: the read-ahead never formed, see the child)" : "");
    return 0;
}
