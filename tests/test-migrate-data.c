/*
 * uvas_migrate moves data byte for byte, both ways (device tier needed):
 * patterned (random, not zero) data in allocations of many sizes goes to
 * the device and back intact, every block covering the migrated range
 * reports UVAS_RES_DEVICE in between (uvas_query on its first and last
 * byte, uvas_query_range) and UVAS_RES_HOST after; the statistics count
 * the moves (migrations[] and bytes_migrated[] grow by the blocks moved,
 * tier[DEVICE].blocks goes up and tier[HOST].blocks down by as many), and
 * reading host-resident data after the return costs no device fault.
 * Unaligned ranges that start and end inside blocks move the whole
 * covering blocks and nothing else, and the bytes of those blocks outside
 * the range survive too (a random walk of partial migrations checked
 * against a residence model and a shadow copy). Untouched blocks are
 * populated at the target with zeros and are not counted as migrations.
 */
#include "check.h"

#define SEED 0x6d696772617465ull

static uint64_t rng = SEED;
static size_t bs;

static size_t blocks_covering(const void *p, size_t len)
{
    return (uintptr_t)((const char *)p + len - 1) / bs - (uintptr_t)p / bs + 1;
}

static void expect_all(const void *p, size_t len, int res, const char *what)
{
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(p, len, &ri));
    size_t n = blocks_covering(p, len);
    CHECK(ri.blocks[res] == n,
          "%s: %zu of the %zu blocks covering %p+%zu are %s (unpopulated %zu, host %zu, "
          "device %zu)", what, ri.blocks[res], n, p, len, uvas_residence_name(res),
          ri.blocks[UVAS_RES_UNPOPULATED], ri.blocks[UVAS_RES_HOST],
          ri.blocks[UVAS_RES_DEVICE]);
    const char *c = p;
    for (size_t off = 0; off < len; off += bs) /* a byte in every block */
        CHECK_EQ(tu_residence(c + off), res, what);
    CHECK_EQ(tu_residence(c + len - 1), res, what);
}

static void compare(const unsigned char *got, const unsigned char *want, size_t n,
                    const char *what, size_t size)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            FAIL("%s (allocation of %zu bytes): byte %zu is 0x%02x, expected 0x%02x", what,
                 size, i, got[i], want[i]);
}

/* One allocation of `size` bytes: fill, to the device, back, compare. */
static void round_trip(size_t size)
{
    unsigned char *p = uvas_malloc(size);
    CHECK(p != NULL, "uvas_malloc(%zu): %s", size, uvas_last_error());
    unsigned char *shadow = malloc(size);
    CHECK(shadow != NULL, "malloc");
    tu_fill_random(&rng, shadow, size);
    memcpy(p, shadow, size);
    expect_all(p, size, UVAS_RES_HOST, "after the fill");
    size_t n = blocks_covering(p, size);

    struct uvas_stats s0 = tu_stats();
    CHECK_OK(uvas_migrate(p, size, UVAS_LOC_DEVICE, 0));
    struct uvas_stats s1 = tu_stats();
    expect_all(p, size, UVAS_RES_DEVICE, "after uvas_migrate to the device");
    CHECK_EQ(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE], n,
             "migrations[DEVICE] growth: blocks moved host -> device");
    CHECK_EQ(s1.bytes_migrated[UVAS_RES_DEVICE] - s0.bytes_migrated[UVAS_RES_DEVICE], n * bs,
             "bytes_migrated[DEVICE] growth");
    CHECK_EQ(s1.tier[UVAS_RES_DEVICE].blocks - s0.tier[UVAS_RES_DEVICE].blocks, n,
             "tier[DEVICE].blocks growth");
    CHECK_EQ(s0.tier[UVAS_RES_HOST].blocks - s1.tier[UVAS_RES_HOST].blocks, n,
             "tier[HOST].blocks drop when host blocks move out");

    /* Again: already there, nothing moves. */
    CHECK_OK(uvas_migrate(p, size, UVAS_LOC_DEVICE, 0));
    struct uvas_stats s2 = tu_stats();
    CHECK_EQ(s2.migrations[UVAS_RES_DEVICE], s1.migrations[UVAS_RES_DEVICE],
             "migrations[DEVICE] after migrating device-resident blocks to the device");
    expect_all(p, size, UVAS_RES_DEVICE, "after a second migrate to the device");

    CHECK_OK(uvas_migrate(p, size, UVAS_LOC_HOST, 0));
    struct uvas_stats s3 = tu_stats();
    expect_all(p, size, UVAS_RES_HOST, "after uvas_migrate back to the host");
    CHECK_EQ(s3.migrations[UVAS_RES_HOST] - s2.migrations[UVAS_RES_HOST], n,
             "migrations[HOST] growth: blocks moved device -> host");
    CHECK_EQ(s3.bytes_migrated[UVAS_RES_HOST] - s2.bytes_migrated[UVAS_RES_HOST], n * bs,
             "bytes_migrated[HOST] growth");
    CHECK_EQ(s3.tier[UVAS_RES_DEVICE].blocks, s0.tier[UVAS_RES_DEVICE].blocks,
             "tier[DEVICE].blocks after the return");
    CHECK_EQ(s3.tier[UVAS_RES_HOST].blocks, s0.tier[UVAS_RES_HOST].blocks,
             "tier[HOST].blocks after the return");

    compare(p, shadow, size, "data after device and back", size);
    struct uvas_stats s4 = tu_stats();
    CHECK_EQ(s4.faults_device, s3.faults_device,
             "faults_device while reading data that is back on the host");
    expect_all(p, size, UVAS_RES_HOST, "after reading it");
    free(shadow);
    CHECK_OK(uvas_try_free(p));
}

/* Partial, unaligned migrations of a 16-block allocation, checked against
 * a model of each block's residence and a shadow of its bytes. */
#define WALK_BLOCKS 16

static void check_model(const unsigned char *a, const int *model, const char *what, int step)
{
    uint8_t map[WALK_BLOCKS];
    size_t nb = 0;
    CHECK_OK(uvas_residency_map(a, WALK_BLOCKS * bs, map, WALK_BLOCKS, &nb));
    CHECK_EQ(nb, WALK_BLOCKS, "uvas_residency_map block count");
    for (int b = 0; b < WALK_BLOCKS; b++)
        CHECK(map[b] == model[b] && tu_residence(a + (size_t)b * bs + bs / 2) == model[b],
              "%s, step %d: block %d is %s, expected %s", what, step, b,
              uvas_residence_name(map[b]), uvas_residence_name(model[b]));
}

static void walk(void)
{
    size_t len = WALK_BLOCKS * bs;
    unsigned char *a = uvas_aligned_alloc(bs, len, 0);
    CHECK(a != NULL, "uvas_aligned_alloc");
    unsigned char *shadow = malloc(len);
    CHECK(shadow != NULL, "malloc");
    tu_fill_random(&rng, shadow, len);
    memcpy(a, shadow, len);
    int model[WALK_BLOCKS];
    for (int b = 0; b < WALK_BLOCKS; b++)
        model[b] = UVAS_RES_HOST;

    /* The fixed case first: [bs + 123, 3bs + 130) covers blocks 1..3. */
    CHECK_OK(uvas_migrate(a + bs + 123, 2 * bs + 7, UVAS_LOC_DEVICE, 0));
    model[1] = model[2] = model[3] = UVAS_RES_DEVICE;
    check_model(a, model, "[bs+123, 3bs+130) to the device", 0);
    /* One byte in the middle of block 2 brings back block 2 only. */
    CHECK_OK(uvas_migrate(a + 2 * bs + 5, 1, UVAS_LOC_HOST, 0));
    model[2] = UVAS_RES_HOST;
    check_model(a, model, "one byte of block 2 to the host", 0);
    /* The last byte of block 4 and the first of block 5. */
    CHECK_OK(uvas_migrate(a + 5 * bs - 1, 2, UVAS_LOC_DEVICE, 0));
    model[4] = model[5] = UVAS_RES_DEVICE;
    check_model(a, model, "2 bytes across the 4/5 boundary to the device", 0);

    for (int step = 1; step <= 120; step++) {
        size_t off = tu_rand(&rng) % len;
        size_t n = 1 + tu_rand(&rng) % (len - off);
        if (step % 3 == 0) /* short ones too */
            n = 1 + tu_rand(&rng) % (n < bs ? n : bs);
        int to = (tu_rand(&rng) >> 7) & 1 ? UVAS_LOC_DEVICE : UVAS_LOC_HOST;
        CHECK_OK(uvas_migrate(a + off, n, to, 0));
        for (size_t b = off / bs; b <= (off + n - 1) / bs; b++)
            model[b] = to;
        check_model(a, model, "random partial migration", step);
        /* New data in a few host-resident blocks (writes there keep the
         * model: host blocks stay on the host). */
        for (int k = 0; k < 3; k++) {
            size_t b = tu_rand(&rng) % WALK_BLOCKS;
            if (model[b] != UVAS_RES_HOST)
                continue;
            size_t o = b * bs + tu_rand(&rng) % bs;
            size_t m = 1 + tu_rand(&rng) % ((b + 1) * bs - o);
            tu_fill_random(&rng, shadow + o, m);
            memcpy(a + o, shadow + o, m);
        }
        check_model(a, model, "after writes to host blocks", step);
    }
    CHECK_OK(uvas_migrate(a, len, UVAS_LOC_HOST, 0));
    expect_all(a, len, UVAS_RES_HOST, "after the walk, all back");
    compare(a, shadow, len, "data after the random walk", len);
    free(shadow);
    CHECK_OK(uvas_try_free(a));
}

/* Untouched blocks: populated at the target, zero-filled, no migration. */
static void untouched(int to)
{
    size_t len = 4 * bs;
    unsigned char *a = uvas_aligned_alloc(bs, len, 0);
    CHECK(a != NULL, "uvas_aligned_alloc");
    expect_all(a, len, UVAS_RES_UNPOPULATED, "fresh allocation");
    struct uvas_stats s0 = tu_stats();
    CHECK_OK(uvas_migrate(a + 10, len - 20, to, 0));
    struct uvas_stats s1 = tu_stats();
    expect_all(a, len, to, to == UVAS_LOC_DEVICE ? "untouched blocks migrated to the device"
                                                 : "untouched blocks migrated to the host");
    CHECK_EQ(s1.migrations[UVAS_RES_DEVICE], s0.migrations[UVAS_RES_DEVICE],
             "migrations[DEVICE] for blocks populated, not moved");
    CHECK_EQ(s1.bytes_migrated[UVAS_RES_DEVICE], s0.bytes_migrated[UVAS_RES_DEVICE],
             "bytes_migrated[DEVICE] for blocks populated, not moved");
    CHECK_EQ(s1.migrations[UVAS_RES_HOST], s0.migrations[UVAS_RES_HOST],
             "migrations[HOST] for blocks populated, not moved");
    CHECK_EQ(s1.tier[to].blocks - s0.tier[to].blocks, 4, "tier blocks after populating");
    if (to == UVAS_LOC_DEVICE) {
        CHECK_OK(uvas_migrate(a, len, UVAS_LOC_HOST, 0));
        expect_all(a, len, UVAS_RES_HOST, "populated on the device, then back");
    }
    long z = tu_find_not(a, len, 0);
    CHECK(z < 0, "untouched block populated on %s: byte %ld is 0x%02x, expected 0",
          uvas_residence_name(to), z, z < 0 ? 0 : a[z]);
    CHECK_OK(uvas_try_free(a));
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device("1G", "64K");
    bs = d.block_size;
    CHECK_EQ(bs, 65536, "block size from UVAS_BLOCK_SIZE=64K");

    const size_t sizes[] = {1,          7,          100,         4095,       4096,
                            4097,       bs - 1,     bs,          bs + 1,     2 * bs - 3,
                            3 * bs + 17, 10 * bs,   64 * bs + 5, 130 * bs + 999};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        round_trip(sizes[i]);
    walk();
    untouched(UVAS_LOC_DEVICE);
    untouched(UVAS_LOC_HOST);
    CHECK_OK(uvas_finalize());
    printf("migrate-data: %zu sizes, random walk and untouched blocks OK\n",
           sizeof sizes / sizeof sizes[0]);
    return 0;
}
