/*
 * Atomic read-modify-writes on memory that migrates (device tier needed):
 * three threads each own 8-byte counters interleaved over four blocks
 * (counter k belongs to thread k % 3, so every block holds counters of
 * every thread, side by side) and add 1 to each of theirs per pass with
 * __atomic_fetch_add; the value it returns must be exactly the number of
 * passes the thread made before (no increment lost, none applied twice),
 * while a migrator thread moves the blocks to the device and back (whole,
 * and one block at a time) for a fixed number of calls, each returning 0.
 * At the end every counter equals its thread's pass count, exactly, read
 * from the device and from the host.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

#define THREADS 3
#define BLOCKS 4
#define PER_BLOCK 48 /* counters per block */
#define CALLS 1200

static uint64_t *area;
static size_t bs, ncounters;
static atomic_int stop;

/* Counter k: block k % BLOCKS, slot k / BLOCKS in it, spaced 24 bytes
 * apart so neighbours of different threads share cache lines. */
static uint64_t *counter(size_t k)
{
    return (uint64_t *)((char *)area + (k % BLOCKS) * bs + 1024 + (k / BLOCKS) * 24);
}

static void *adder(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t passes = 0;
    while (!atomic_load(&stop)) {
        for (size_t k = (size_t)t; k < ncounters; k += THREADS) {
            uint64_t old = __atomic_fetch_add(counter(k), 1, __ATOMIC_RELAXED);
            CHECK(old == passes, "thread %d: counter %zu (block %zu) was %llu before its "
                  "increment, expected %llu", t, k, k % BLOCKS, (unsigned long long)old,
                  (unsigned long long)passes);
        }
        passes++;
    }
    return (void *)(uintptr_t)passes;
}

int main(void)
{
    tu_deadline(55);
    struct uvas_range_desc d = tu_init_device("1G", "64K");
    bs = d.block_size;
    size_t len = BLOCKS * bs;
    area = uvas_aligned_alloc(bs, len, 0);
    CHECK(area != NULL, "uvas_aligned_alloc");
    ncounters = BLOCKS * PER_BLOCK;
    memset(area, 0xc5, len); /* the bytes around the counters */
    for (size_t k = 0; k < ncounters; k++)
        *counter(k) = 0;
    /* Start on the device: the first increments fault the blocks back. */
    CHECK_OK(uvas_migrate(area, len, UVAS_LOC_DEVICE, 0));
    struct uvas_stats s0 = tu_stats();

    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, adder, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int c = 0; c < CALLS; c++) {
        int to = c % 2 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE;
        char *p = (char *)area;
        size_t n = len;
        if (c % 4 >= 2) { /* one block, an unaligned piece of it */
            p += (size_t)(c / 4 % BLOCKS) * bs + 100;
            n = 200;
        }
        int rc = uvas_migrate(p, n, to, 0);
        CHECK(rc == 0, "call %d: uvas_migrate to the %s returned %d (%s)", c,
              uvas_residence_name(to), rc, uvas_strerror(rc));
    }
    atomic_store(&stop, 1);
    uint64_t passes[THREADS];
    for (int t = 0; t < THREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        passes[t] = (uint64_t)(uintptr_t)r;
    }

    for (int pass = 0; pass < 2; pass++) {
        CHECK_OK(uvas_migrate(area, len, pass ? UVAS_LOC_HOST : UVAS_LOC_DEVICE, 0));
        for (size_t k = 0; k < ncounters; k++) {
            uint64_t want = passes[k % THREADS];
            uint64_t got = __atomic_load_n(counter(k), __ATOMIC_RELAXED);
            CHECK(got == want, "%s: counter %zu of thread %zu is %llu, expected exactly %llu",
                  pass ? "on the host" : "from the device", k, k % THREADS,
                  (unsigned long long)got, (unsigned long long)want);
        }
        /* The bytes between the counters were never written. */
        const unsigned char *c = (const unsigned char *)area;
        for (size_t i = 0; i < len; i++) {
            size_t b = i / bs, o = i % bs;
            if (o >= 1024 && o < 1024 + PER_BLOCK * 24 && (o - 1024) % 24 < 8)
                continue; /* a counter */
            CHECK(c[i] == 0xc5, "byte %zu (block %zu) is 0x%02x, expected 0xc5", i, b, c[i]);
        }
    }
    struct uvas_stats s1 = tu_stats();
    printf("%d migrate calls: %llu blocks to device, %llu CPU faults on device blocks; "
           "passes %llu/%llu/%llu\n", CALLS,
           (unsigned long long)(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE]),
           (unsigned long long)(s1.faults_device - s0.faults_device),
           (unsigned long long)passes[0], (unsigned long long)passes[1],
           (unsigned long long)passes[2]);
    CHECK(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE] >= 50,
          "too few blocks moved to the device for the test to mean anything");
    CHECK_OK(uvas_try_free(area));
    CHECK_OK(uvas_finalize());
    return 0;
}
