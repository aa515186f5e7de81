/*
 * Memory freed while an asynchronous migration of it is still queued
 * (uvas_migrate with UVAS_MIGRATE_ASYNC, then uvas_free): the queued
 * request must not move blocks that were given back. Before the fix the
 * worker moved them anyway: the freed range held 32 blocks of the device
 * tier, and the next allocation there, host-heap memory (UVAS_HINT_HOST,
 * which never leaves the host), was born on the device. Also a realloc
 * that shrinks an allocation while a request on its tail is queued, and
 * many requests queued on allocations freed at once.
 */
#include "check.h"

#define NBLK 32

static size_t bs;

static size_t device_blocks(void)
{
    return tu_stats().tier[UVAS_RES_DEVICE].blocks;
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device("256M", "2M");
    bs = d.block_size;
    size_t len = NBLK * bs;

    /* One allocation, its move queued, freed at once. */
    for (int round = 0; round < 4; round++) {
        char *p = uvas_aligned_alloc(bs, len, 0);
        CHECK(p != NULL, "uvas_aligned_alloc");
        memset(p, 0x5a, len);
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, UVAS_MIGRATE_ASYNC));
        CHECK_OK(uvas_try_free(p));
        CHECK_OK(uvas_migrate_wait());
        CHECK_EQ(device_blocks(), 0, "device-tier blocks after the freed range's queued move");
        struct uvas_range_info ri;
        CHECK_OK(uvas_query_range(p, len, &ri));
        CHECK_EQ(ri.blocks[UVAS_RES_DEVICE], 0, "device blocks in the freed range");
        /* The blocks go to host-heap memory next: it must be born on the host. */
        char *h = uvas_malloc_hint(len, UVAS_HINT_HOST);
        CHECK(h != NULL, "uvas_malloc_hint(UVAS_HINT_HOST)");
        h[0] = 1;
        h[len - 1] = 2;
        CHECK_EQ(tu_residence(h), UVAS_RES_HOST, "host-heap memory's first block");
        CHECK_EQ(tu_residence(h + len - 1), UVAS_RES_HOST, "host-heap memory's last block");
        CHECK_OK(uvas_try_free(h));
    }

    /* A shrink while the tail's move is queued: the kept head may move,
     * the given-back tail may not. */
    char *p = uvas_aligned_alloc(bs, len, 0);
    CHECK(p != NULL, "uvas_aligned_alloc");
    memset(p, 0x33, len);
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, UVAS_MIGRATE_ASYNC));
    char *q = uvas_realloc(p, 4 * bs);
    CHECK(q == p, "a shrink stays in place");
    CHECK_OK(uvas_migrate_wait());
    CHECK(device_blocks() <= 4, "%zu device-tier blocks after a shrink to 4 blocks",
          device_blocks());
    CHECK_EQ(tu_find_not(q, 4 * bs, 0x33), -1, "the kept head's data");
    CHECK_OK(uvas_try_free(q));

    /* Many requests, on many allocations, all freed before the worker is
     * done. */
    char *a[8];
    for (int i = 0; i < 8; i++) {
        a[i] = uvas_aligned_alloc(bs, 4 * bs, 0);
        CHECK(a[i] != NULL, "uvas_aligned_alloc");
        memset(a[i], i, 4 * bs);
        for (int k = 0; k < 4; k++)
            CHECK_OK(uvas_migrate(a[i] + k * bs, bs, k % 2 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE,
                                  UVAS_MIGRATE_ASYNC));
    }
    for (int i = 0; i < 8; i++)
        CHECK_OK(uvas_try_free(a[i]));
    CHECK_OK(uvas_migrate_wait());
    CHECK_EQ(device_blocks(), 0, "device-tier blocks once every allocation is freed");
    CHECK_OK(uvas_finalize());
    return 0;
}
