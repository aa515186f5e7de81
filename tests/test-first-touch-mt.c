/*
 * First touch under concurrency (uffd mode): 8 threads first-touch the same
 * blocks and their own blocks at once, for block sizes 4K, 64K and 2M
 * (finalize and re-init between sizes). In each shared block every thread
 * owns a disjoint byte range; each thread also owns whole blocks. Even
 * threads read their bytes first (all zero) then write; odd threads write
 * first (a write fault), then check the rest is zero and write it. After a
 * barrier every byte holds exactly what its writer wrote, every block is
 * UVAS_RES_HOST and tier[HOST].blocks_populated grew by exactly the number
 * of blocks. Several rounds on fresh blocks per size.
 */
#include <pthread.h>

#include "check.h"

#define NT 8
#define SHARED 4
#define OWN 2
#define ROUNDS 3

static unsigned char *region;
static size_t bs, slice;
static pthread_barrier_t start, done;

static unsigned char pat(int t, size_t i)
{
    return (unsigned char)(1 + t * 29 + i * 7 + (i >> 12));
}

static void touch(int t, unsigned char *p, size_t n, size_t tag)
{
    if (t % 2 == 0) {
        long bad = tu_find_not(p, n, 0);
        CHECK(bad < 0, "bs %zu thread %d: byte %ld of its range reads 0x%02x "
              "before any write", bs, t, bad, bad >= 0 ? p[bad] : 0);
        for (size_t i = 0; i < n; i++)
            p[i] = pat(t, i + tag);
    } else {
        p[0] = pat(t, tag);
        long bad = tu_find_not(p + 1, n - 1, 0);
        CHECK(bad < 0, "bs %zu thread %d: byte %ld reads 0x%02x before any "
              "write", bs, t, bad + 1, bad >= 0 ? p[bad + 1] : 0);
        for (size_t i = 1; i < n; i++)
            p[i] = pat(t, i + tag);
    }
    for (size_t i = 0; i < n; i++)
        CHECK(p[i] == pat(t, i + tag), "bs %zu thread %d: byte %zu reads "
              "0x%02x right after its write", bs, t, i, p[i]);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    pthread_barrier_wait(&start);
    /* Shared blocks, in the same order in every thread: maximal contention. */
    for (int s = 0; s < SHARED; s++)
        touch(t, region + (size_t)s * bs + (size_t)t * slice, slice,
              (size_t)s * 1000);
    /* Own blocks. */
    for (int o = 0; o < OWN; o++)
        touch(t, region + (size_t)(SHARED + t * OWN + o) * bs, bs,
              (size_t)o * 5000 + 77);
    pthread_barrier_wait(&done);
    return NULL;
}

static void verify_all(void)
{
    for (int s = 0; s < SHARED; s++)
        for (int t = 0; t < NT; t++) {
            unsigned char *p = region + (size_t)s * bs + (size_t)t * slice;
            for (size_t i = 0; i < slice; i++)
                CHECK(p[i] == pat(t, i + (size_t)s * 1000),
                      "bs %zu: shared block %d, thread %d's byte %zu is 0x%02x"
                      ", expected 0x%02x", bs, s, t, i, p[i],
                      pat(t, i + (size_t)s * 1000));
        }
    for (int t = 0; t < NT; t++)
        for (int o = 0; o < OWN; o++) {
            unsigned char *p = region + (size_t)(SHARED + t * OWN + o) * bs;
            for (size_t i = 0; i < bs; i++)
                CHECK(p[i] == pat(t, i + (size_t)o * 5000 + 77),
                      "bs %zu: thread %d's own block %d, byte %zu is 0x%02x",
                      bs, t, o, i, p[i]);
        }
}

static void run(size_t block_size)
{
    struct uvas_options o = {0};
    o.size = (size_t)512 << 20;
    o.block_size = block_size;
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_require_uffd();
    bs = d.block_size;
    CHECK_EQ(bs, block_size, "block_size");
    slice = bs / NT;
    size_t nblocks = SHARED + NT * OWN;

    for (int round = 0; round < ROUNDS; round++) {
        region = uvas_malloc(nblocks * bs);
        CHECK(region != NULL, "uvas_malloc(%zu)", nblocks * bs);
        CHECK((uintptr_t)region % bs == 0, "not block aligned");
        struct uvas_range_info ri;
        CHECK_OK(uvas_query_range(region, nblocks * bs, &ri));
        CHECK_EQ(ri.blocks[UVAS_RES_UNPOPULATED], nblocks,
                 "unpopulated before the round");
        struct uvas_stats s0 = tu_stats();

        pthread_barrier_init(&start, NULL, NT);
        pthread_barrier_init(&done, NULL, NT);
        pthread_t th[NT];
        for (int t = 0; t < NT; t++)
            CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0,
                  "pthread_create");
        for (int t = 0; t < NT; t++)
            pthread_join(th[t], NULL);
        pthread_barrier_destroy(&start);
        pthread_barrier_destroy(&done);

        verify_all();
        CHECK_OK(uvas_query_range(region, nblocks * bs, &ri));
        CHECK(ri.blocks[UVAS_RES_HOST] == nblocks,
              "bs %zu round %d: %zu of %zu blocks host", bs, round,
              ri.blocks[UVAS_RES_HOST], nblocks);
        struct uvas_stats s1 = tu_stats();
        CHECK(s1.tier[UVAS_RES_HOST].blocks_populated -
                      s0.tier[UVAS_RES_HOST].blocks_populated == nblocks,
              "bs %zu round %d: blocks_populated grew by %llu, expected %zu "
              "(each block placed exactly once)", bs, round,
              (unsigned long long)(s1.tier[UVAS_RES_HOST].blocks_populated -
                                   s0.tier[UVAS_RES_HOST].blocks_populated),
              nblocks);
        CHECK(s1.faults - s0.faults >= 1, "no faults recorded");
        /* Keep the region allocated: the next round uses fresh blocks. */
    }
    CHECK_OK(uvas_finalize());
}

int main(void)
{
    tu_deadline(58);
    tu_clear_env();
    run(4096);
    run(65536);
    run((size_t)2 << 20);
    return 0;
}
