/*
 * A full device tier (UVAS_DEVICE_SIZE=1M with 64K blocks: 16 device
 * blocks; device tier needed):
 *  - d.device_capacity reports the bound (1 MiB);
 *  - migrating A (8 blocks), X (4) then B (12 blocks) returns 0 for all
 *    and evicts the least recently migrated blocks (all 8 of A's, none of
 *    X's) to the host: B and X are on the device, A on the host, and
 *    stats.evictions grew by exactly 8;
 *  - migrating C (20 blocks, more than fits) returns UVAS_ERR_NOMEM, the
 *    device holds at most 16 blocks, what did not fit is on the host; the
 *    same with UVAS_MIGRATE_ASYNC: uvas_migrate_wait returns NOMEM;
 *  - no data is lost anywhere (A, B, C compared byte for byte);
 *  - UVAS_HINT_DEVICE allocations beyond the capacity (one of 24 blocks,
 *    then 40 of one block each) succeed, read zero, and touching every
 *    byte of them works (ends on the host, data right);
 *  - after every step, the DEVICE blocks over the whole range (by
 *    uvas_query_range) never exceed the capacity, and equal
 *    stats.tier[DEVICE].blocks;
 *  - freeing device-resident memory gives the tier back: after freeing
 *    everything, tier[DEVICE].blocks is 0.
 */
#include "check.h"

#define CAP_BLOCKS 16

static size_t bs;
static struct uvas_range_desc d;
static uint64_t rng = 0xf011ull;

static size_t count(const void *p, size_t len, int res)
{
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(p, len, &ri));
    return ri.blocks[res];
}

/* The invariant: never more device blocks than the tier holds. */
static size_t check_bound(const char *when)
{
    size_t dev = count(d.base, d.size, UVAS_RES_DEVICE);
    CHECK(dev <= CAP_BLOCKS, "%s: %zu blocks of the range are on the device, capacity %d",
          when, dev, CAP_BLOCKS);
    struct uvas_stats s = tu_stats();
    CHECK(s.tier[UVAS_RES_DEVICE].blocks == dev,
          "%s: stats.tier[DEVICE].blocks is %zu, the range has %zu device blocks", when,
          s.tier[UVAS_RES_DEVICE].blocks, dev);
    return dev;
}

static void compare(const unsigned char *got, const unsigned char *want, size_t n,
                    const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            FAIL("%s: byte %zu (block %zu) is 0x%02x, expected 0x%02x", what, i, i / bs,
                 got[i], want[i]);
}

struct area {
    unsigned char *p, *shadow;
    size_t len;
};

static struct area make(size_t blocks)
{
    struct area a = {uvas_aligned_alloc(bs, blocks * bs, 0), malloc(blocks * bs), blocks * bs};
    CHECK(a.p && a.shadow, "allocation of %zu blocks", blocks);
    tu_fill_random(&rng, a.shadow, a.len);
    memcpy(a.p, a.shadow, a.len);
    return a;
}

int main(void)
{
    tu_deadline(50);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_setenv("UVAS_DEVICE_SIZE", "1M");
    tu_init_env();
    d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    bs = d.block_size;
    CHECK_EQ(bs, 65536, "block size");
    CHECK_EQ(d.device_capacity, (size_t)1 << 20, "device_capacity with UVAS_DEVICE_SIZE=1M");
    check_bound("at start");

    /* A fits. */
    struct area A = make(8), X = make(4), B = make(12), C = make(20);
    struct uvas_stats s0 = tu_stats();
    CHECK_OK(uvas_migrate(A.p, A.len, UVAS_LOC_DEVICE, 0));
    CHECK_EQ(count(A.p, A.len, UVAS_RES_DEVICE), 8, "A's device blocks");
    CHECK_EQ(check_bound("after A"), 8, "device blocks after A");
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.evictions, s0.evictions, "evictions while the tier had room");

    /* X (4 blocks) after A: 12 of 16 used. */
    CHECK_OK(uvas_migrate(X.p, X.len, UVAS_LOC_DEVICE, 0));
    CHECK_EQ(check_bound("after A and X"), 12, "device blocks after A and X");
    CHECK_EQ(tu_stats().evictions, s0.evictions, "evictions while the tier had room");

    /* B (12) fits only by evicting 8: the least recently migrated are
     * A's, all of them; X (migrated after A) stays. */
    CHECK_OK(uvas_migrate(B.p, B.len, UVAS_LOC_DEVICE, 0));
    CHECK_EQ(count(B.p, B.len, UVAS_RES_DEVICE), 12, "B's device blocks (B fits after eviction)");
    CHECK_EQ(count(X.p, X.len, UVAS_RES_DEVICE), 4,
             "X's device blocks: X was migrated after A, so A's blocks go first");
    size_t a_dev = count(A.p, A.len, UVAS_RES_DEVICE);
    CHECK_EQ(a_dev, 0, "A's blocks still on the device next to B's 12 and X's 4 (capacity 16)");
    CHECK_EQ(count(A.p, A.len, UVAS_RES_HOST), 8, "A's evicted blocks are on the host");
    struct uvas_stats s2 = tu_stats();
    CHECK_EQ(s2.evictions - s1.evictions, 8, "evictions: A's blocks pushed out for B");
    check_bound("after B");
    compare(A.p, A.shadow, A.len, "A after eviction");
    compare(X.p, X.shadow, X.len, "X on the device (read back)");
    compare(B.p, B.shadow, B.len, "B on the device (read back)");

    /* C does not fit at all. */
    CHECK_OK(uvas_migrate(A.p, A.len, UVAS_LOC_DEVICE, 0));
    CHECK_OK(uvas_migrate(B.p, 8 * bs, UVAS_LOC_DEVICE, 0));
    check_bound("after A and part of B again");
    struct uvas_stats s3 = tu_stats();
    CHECK_STATUS(uvas_migrate(C.p, C.len, UVAS_LOC_DEVICE, 0), UVAS_ERR_NOMEM);
    size_t c_dev = count(C.p, C.len, UVAS_RES_DEVICE);
    CHECK(c_dev > 0, "none of C reached the device although the tier could evict");
    CHECK_EQ(count(C.p, C.len, UVAS_RES_HOST), 20 - c_dev,
             "C's blocks that did not fit are on the host");
    struct uvas_stats s4 = tu_stats();
    CHECK(s4.evictions > s3.evictions, "evictions did not grow while C pushed A and B out");
    check_bound("after C");
    compare(A.p, A.shadow, A.len, "A after C");
    compare(B.p, B.shadow, B.len, "B after C");
    compare(C.p, C.shadow, C.len, "C after its partial migration");

    /* The same, queued. */
    CHECK_OK(uvas_migrate(C.p, C.len, UVAS_LOC_DEVICE, UVAS_MIGRATE_ASYNC));
    CHECK_STATUS(uvas_migrate_wait(), UVAS_ERR_NOMEM);
    check_bound("after C, queued");
    compare(C.p, C.shadow, C.len, "C after its queued partial migration");

    /* Many rounds of everything, in turn, bound checked each time. */
    struct area *all[3] = {&A, &B, &C};
    for (int round = 0; round < 12; round++) {
        struct area *x = all[round % 3];
        int rc = uvas_migrate(x->p, x->len, UVAS_LOC_DEVICE, 0);
        CHECK(rc == UVAS_OK || rc == UVAS_ERR_NOMEM, "round %d: uvas_migrate returned %d (%s)",
              round, rc, uvas_strerror(rc));
        if (x->len > CAP_BLOCKS * bs)
            CHECK_EQ(rc, UVAS_ERR_NOMEM, "migrating more blocks than the tier holds");
        check_bound("rounds");
    }
    for (int i = 0; i < 3; i++)
        compare(all[i]->p, all[i]->shadow, all[i]->len, "data after the rounds");
    check_bound("after reading everything");

    /* Device-hinted allocations beyond the capacity. */
    CHECK_OK(uvas_migrate(B.p, B.len, UVAS_LOC_DEVICE, 0));
    size_t hlen = 24 * bs + 100;
    unsigned char *h = uvas_malloc_hint(hlen, UVAS_HINT_DEVICE);
    CHECK(h != NULL, "uvas_malloc_hint(24 blocks, UVAS_HINT_DEVICE) with a 16-block tier: %s",
          uvas_last_error());
    check_bound("after a 24-block UVAS_HINT_DEVICE allocation");
    CHECK(tu_find_not(h, hlen, 0) < 0, "UVAS_HINT_DEVICE memory beyond capacity not zero");
    check_bound("after reading it");
    memset(h, 0x6b, hlen);
    CHECK(tu_find_not(h, hlen, 0x6b) < 0, "UVAS_HINT_DEVICE memory beyond capacity: data");
    /* Readahead may still be publishing the last blocks it brought back
     * (check.h, tu_settle_blocks). */
    tu_settle_blocks(h, hlen, UVAS_RES_HOST,
                     "UVAS_HINT_DEVICE blocks on the host after CPU writes to every block");
    check_bound("after writing it");

    unsigned char *v[40];
    for (int i = 0; i < 40; i++) {
        v[i] = uvas_malloc_hint(bs, UVAS_HINT_DEVICE);
        CHECK(v[i] != NULL, "UVAS_HINT_DEVICE allocation %d of 40 (one block each, tier of "
              "16): %s", i, uvas_last_error());
        check_bound("while allocating 40 device-hinted blocks");
    }
    for (int i = 0; i < 40; i++) {
        CHECK(tu_find_not(v[i], bs, 0) < 0, "device-hinted allocation %d not zero", i);
        memset(v[i], i + 1, bs);
    }
    check_bound("after touching the 40");
    for (int i = 0; i < 40; i++)
        CHECK(tu_find_not(v[i], bs, (unsigned char)(i + 1)) < 0, "device-hinted allocation "
              "%d lost its data", i);
    for (int i = 0; i < 3; i++)
        compare(all[i]->p, all[i]->shadow, all[i]->len, "A, B, C at the end");

    /* Free device-resident memory: the tier gives the blocks back. */
    CHECK_OK(uvas_migrate(A.p, A.len, UVAS_LOC_DEVICE, 0));
    CHECK(count(A.p, A.len, UVAS_RES_DEVICE) == 8, "A back on the device");
    for (int i = 0; i < 40; i++)
        CHECK_OK(uvas_try_free(v[i]));
    CHECK_OK(uvas_try_free(h));
    compare(X.p, X.shadow, X.len, "X at the end");
    CHECK_OK(uvas_try_free(X.p));
    free(X.shadow);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(uvas_try_free(all[i]->p));
        free(all[i]->shadow);
        check_bound("while freeing");
    }
    struct uvas_stats se = tu_stats();
    CHECK_EQ(se.tier[UVAS_RES_DEVICE].blocks, 0, "tier[DEVICE].blocks after freeing everything");
    /* And it has room again: 16 new blocks fit without eviction. */
    struct area E = make(16);
    struct uvas_stats s5 = tu_stats();
    CHECK_OK(uvas_migrate(E.p, E.len, UVAS_LOC_DEVICE, 0));
    CHECK_EQ(count(E.p, E.len, UVAS_RES_DEVICE), 16, "16 blocks after the tier was emptied");
    CHECK_EQ(tu_stats().evictions, s5.evictions, "evictions into an emptied tier");
    compare(E.p, E.shadow, E.len, "E");
    CHECK_OK(uvas_try_free(E.p));
    free(E.shadow);
    CHECK_OK(uvas_finalize());
    printf("device-full: evictions %llu, OK\n", (unsigned long long)se.evictions);
    return 0;
}
