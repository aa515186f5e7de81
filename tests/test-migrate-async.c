/*
 * Asynchronous migration (device tier needed): uvas_migrate with
 * UVAS_MIGRATE_ASYNC returns 0 at once for each of many queued requests
 * (one per block, with unaligned pieces, and larger spans); a single
 * uvas_migrate_wait() then returns 0 and every block shows the new
 * residence, in both directions, for touched and untouched blocks. Data
 * survives, also when the CPU reads it while the requests are still
 * queued (those reads race the worker), and after a mix of queued
 * requests in both directions over the same blocks. uvas_migrate_wait
 * with nothing queued returns 0.
 */
#include "check.h"

#define NBLK 48

static size_t bs;
static uint64_t rng = 0xa5c0ull;

static void expect_range(const void *p, size_t len, int res, const char *what)
{
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(p, len, &ri));
    size_t n = (uintptr_t)((const char *)p + len - 1) / bs - (uintptr_t)p / bs + 1;
    CHECK(ri.blocks[res] == n, "%s: %zu of %zu blocks are %s (unpopulated %zu, host %zu, "
          "device %zu)", what, ri.blocks[res], n, uvas_residence_name(res),
          ri.blocks[UVAS_RES_UNPOPULATED], ri.blocks[UVAS_RES_HOST], ri.blocks[UVAS_RES_DEVICE]);
    const char *c = p;
    for (size_t off = 0; off < len; off += bs)
        CHECK_EQ(tu_residence(c + off), res, what);
}

static void compare(const unsigned char *got, const unsigned char *want, size_t n,
                    const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            FAIL("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, got[i], want[i]);
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device("1G", "64K");
    bs = d.block_size;
    size_t len = NBLK * bs;

    CHECK_OK(uvas_migrate_wait()); /* nothing queued yet */

    unsigned char *a = uvas_aligned_alloc(bs, len, 0);
    unsigned char *shadow = malloc(len);
    CHECK(a && shadow, "allocation");
    tu_fill_random(&rng, shadow, len);
    memcpy(a, shadow, len);
    struct uvas_stats s0 = tu_stats();

    /* One request per block, each a few bytes inside it. */
    for (size_t b = 0; b < NBLK; b++) {
        size_t off = b * bs + (b * 997) % (bs - 64);
        CHECK_OK(uvas_migrate(a + off, 1 + b % 64, UVAS_LOC_DEVICE, UVAS_MIGRATE_ASYNC));
    }
    CHECK_OK(uvas_migrate_wait());
    expect_range(a, len, UVAS_RES_DEVICE, "48 queued block requests to the device, waited");
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE], NBLK,
             "migrations[DEVICE] after the queued requests");
    CHECK_EQ(s1.tier[UVAS_RES_DEVICE].blocks - s0.tier[UVAS_RES_DEVICE].blocks, NBLK,
             "tier[DEVICE].blocks after the queued requests");

    /* Back, in spans of varying size (unaligned ends). */
    for (size_t off = 0; off < len;) {
        size_t n = 1 + tu_rand(&rng) % (3 * bs);
        if (n > len - off)
            n = len - off;
        CHECK_OK(uvas_migrate(a + off, n, UVAS_LOC_HOST, UVAS_MIGRATE_ASYNC));
        off += n;
    }
    CHECK_OK(uvas_migrate_wait());
    expect_range(a, len, UVAS_RES_HOST, "queued spans to the host, waited");
    compare(a, shadow, len, "data after the asynchronous round trip");

    /* Reads racing queued migrations: the CPU reads while the worker
     * moves the blocks; every byte must still be right. */
    for (int round = 0; round < 6; round++) {
        for (size_t b = 0; b < NBLK; b += 4)
            CHECK_OK(uvas_migrate(a + b * bs, 4 * bs, UVAS_LOC_DEVICE, UVAS_MIGRATE_ASYNC));
        compare(a, shadow, len, "data read while asynchronous migrations ran");
        CHECK_OK(uvas_migrate_wait());
        compare(a, shadow, len, "data after the wait");
    }

    /* A mix of both directions over overlapping spans, all queued, one
     * wait: data survives, every block is populated. */
    CHECK_OK(uvas_migrate(a, len, UVAS_LOC_HOST, 0));
    for (int k = 0; k < 200; k++) {
        size_t off = tu_rand(&rng) % len;
        size_t n = 1 + tu_rand(&rng) % (len - off < 5 * bs ? len - off : 5 * bs);
        int to = k % 2 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE;
        CHECK_OK(uvas_migrate(a + off, n, to, UVAS_MIGRATE_ASYNC));
    }
    CHECK_OK(uvas_migrate_wait());
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(a, len, &ri));
    CHECK_EQ(ri.blocks[UVAS_RES_UNPOPULATED], 0, "unpopulated blocks after the mixed requests");
    CHECK_EQ(ri.blocks[UVAS_RES_HOST] + ri.blocks[UVAS_RES_DEVICE], NBLK,
             "blocks after the mixed requests");
    compare(a, shadow, len, "data after the mixed asynchronous requests");

    /* Untouched blocks, asynchronously: populated on the device, zeros. */
    unsigned char *z = uvas_aligned_alloc(bs, 8 * bs, 0);
    CHECK(z != NULL, "uvas_aligned_alloc");
    for (size_t b = 0; b < 8; b++)
        CHECK_OK(uvas_migrate(z + b * bs + 3, bs - 6, UVAS_LOC_DEVICE, UVAS_MIGRATE_ASYNC));
    CHECK_OK(uvas_migrate_wait());
    expect_range(z, 8 * bs, UVAS_RES_DEVICE, "untouched blocks after queued requests");
    CHECK_OK(uvas_migrate(z, 8 * bs, UVAS_LOC_HOST, UVAS_MIGRATE_ASYNC));
    CHECK_OK(uvas_migrate_wait());
    expect_range(z, 8 * bs, UVAS_RES_HOST, "and back, queued");
    long nz = tu_find_not(z, 8 * bs, 0);
    CHECK(nz < 0, "untouched blocks migrated asynchronously: byte %ld not zero", nz);

    CHECK_OK(uvas_migrate_wait()); /* nothing left */
    free(shadow);
    CHECK_OK(uvas_try_free(z));
    CHECK_OK(uvas_try_free(a));
    CHECK_OK(uvas_finalize());
    printf("migrate-async: OK\n");
    return 0;
}
