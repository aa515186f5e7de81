/*
 * A lone block migrated goes in pieces, each unmapped just before its
 * copy to the device or mapped just after its copy back
 * (migrate/migrate.c, lone_to_device, lone_to_host): no write made to
 * one piece while another copies may be lost. One block of the default
 * size (2 MiB, 4 KiB pages: four pieces) moves to the device and back, a
 * fixed number of times, while four writers store an increasing counter
 * into words of each quarter (from the quarter's first page on, where
 * two pieces meet), each first reading its words back: they must hold
 * what it stored last. A reader checks the words nobody writes. At the
 * end, on the device and back on the host, every word holds its last
 * value or its pattern.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

#define WRITERS 4
#define MOVES 200 /* migrations each way */
#define WORDS 8   /* owned words per writer */

static uint64_t *area;
static size_t words, bs;
static atomic_int stop;

/* Writer t's words: in quarter t, a page apart from its first word on;
 * writer 0's from the last word of quarter 0 back (the boundary's other
 * side). */
static size_t word_of(int t, int k)
{
    size_t q = words / WRITERS, page = 4096 / sizeof *area;
    return t == 0 ? q - 1 - (size_t)k * page : (size_t)t * q + (size_t)k * page;
}

static bool owned(size_t i)
{
    for (int t = 0; t < WRITERS; t++)
        for (int k = 0; k < WORDS; k++)
            if (word_of(t, k) == i)
                return true;
    return false;
}

static uint64_t pattern(size_t i)
{
    return 0x9e3779b97f4a7c15ull * (i + 1);
}

static void *writer(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t v = 0;
    while (!atomic_load(&stop)) {
        v++;
        for (int k = 0; k < WORDS; k++) {
            size_t i = word_of(t, k);
            uint64_t want = v == 1 ? pattern(i) : ((v - 1) << 8) | (uint64_t)t;
            uint64_t got = ((volatile uint64_t *)area)[i];
            CHECK(got == want, "writer %d, pass %llu: word %zu (quarter %zu) holds %#llx, "
                  "last stored %#llx: a write was lost", t, (unsigned long long)v, i,
                  i / (words / WRITERS), (unsigned long long)got, (unsigned long long)want);
            ((volatile uint64_t *)area)[i] = (v << 8) | (uint64_t)t;
        }
    }
    return (void *)(uintptr_t)v;
}

static void *reader(void *arg)
{
    (void)arg;
    uint64_t passes = 0;
    while (!atomic_load(&stop)) {
        for (size_t i = 3; i < words; i += 509)
            if (!owned(i))
                CHECK(((volatile uint64_t *)area)[i] == pattern(i),
                      "reader: unowned word %zu changed", i);
        passes++;
    }
    return (void *)(uintptr_t)passes;
}

int main(void)
{
    tu_deadline(55);
    struct uvas_range_desc d = tu_init_device("256M", "2M");
    bs = d.block_size;
    area = uvas_aligned_alloc(bs, bs, 0);
    CHECK(area != NULL, "uvas_aligned_alloc");
    words = bs / sizeof *area;
    for (size_t i = 0; i < words; i++)
        area[i] = pattern(i);
    struct uvas_stats s0 = tu_stats();

    pthread_t wt[WRITERS], rt;
    for (int t = 0; t < WRITERS; t++)
        CHECK(pthread_create(&wt[t], NULL, writer, (void *)(intptr_t)t) == 0, "pthread_create");
    CHECK(pthread_create(&rt, NULL, reader, NULL) == 0, "pthread_create");
    for (int m = 0; m < MOVES; m++) {
        CHECK_OK(uvas_migrate(area, bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(area, bs, UVAS_LOC_HOST, 0));
    }
    atomic_store(&stop, 1);
    uint64_t last[WRITERS];
    void *r;
    for (int t = 0; t < WRITERS; t++) {
        pthread_join(wt[t], &r);
        last[t] = (uint64_t)(uintptr_t)r;
    }
    pthread_join(rt, NULL);

    for (int pass = 0; pass < 2; pass++) {
        CHECK_OK(uvas_migrate(area, bs, pass ? UVAS_LOC_HOST : UVAS_LOC_DEVICE, 0));
        for (int t = 0; t < WRITERS; t++)
            for (int k = 0; k < WORDS; k++) {
                size_t i = word_of(t, k);
                CHECK(area[i] == ((last[t] << 8) | (uint64_t)t),
                      "after the run (%s): word %zu holds %#llx, writer %d stored %#llx last",
                      pass ? "back on the host" : "read from the device", i,
                      (unsigned long long)area[i], t,
                      (unsigned long long)((last[t] << 8) | (uint64_t)t));
            }
        for (size_t i = 0; i < words; i += 61)
            if (!owned(i))
                CHECK(area[i] == pattern(i), "after the run: unowned word %zu changed", i);
    }
    struct uvas_stats s1 = tu_stats();
    printf("%d moves each way; writers %llu/%llu/%llu/%llu passes; %llu blocks to the device\n",
           MOVES, (unsigned long long)last[0], (unsigned long long)last[1],
           (unsigned long long)last[2], (unsigned long long)last[3],
           (unsigned long long)(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE]));
    CHECK(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE] >= MOVES,
          "the block did not move to the device each time");
    CHECK_OK(uvas_try_free(area));
    CHECK_OK(uvas_finalize());
    return 0;
}
