/*
 * Concurrent allocation: 8 threads malloc/calloc/realloc/free at once (many
 * sizes, all hints) and get memory that overlaps no other live allocation:
 * each thread fills its allocations with its own pattern and verifies it
 * before freeing; uvas_query from the owning thread reports each
 * allocation's base and size; fresh and calloc'd memory reads zero.
 */
#include <pthread.h>

#include "check.h"

#define NT 8
/* ThreadSanitizer makes each iteration ~15x dearer (35 s of the 58 s
 * deadline alone, over it beside another test): fewer under it. */
#if defined(__SANITIZE_THREAD__)
#define ITERS 300
#else
#define ITERS 1000
#endif
#define SLOTS 24

static size_t bs;
static pthread_barrier_t start;

static unsigned char pat(int t, unsigned slot, unsigned gen)
{
    return (unsigned char)(0x11 * (t + 1) + slot * 3 + gen * 5);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t seed = 0xabcdef12345ull * (uint64_t)(t + 1);
    unsigned char *p[SLOTS] = {0};
    size_t n[SLOTS] = {0};
    unsigned gen[SLOTS] = {0};
    pthread_barrier_wait(&start);
    for (int it = 0; it < ITERS; it++) {
        unsigned s = (unsigned)(tu_rand(&seed) % SLOTS);
        if (p[s]) {
            /* Verify the pattern, then free or realloc. */
            unsigned char v = pat(t, s, gen[s]);
            long bad = tu_find_not(p[s], n[s], v);
            CHECK(bad < 0, "thread %d: allocation %p (+%zu) byte %ld is 0x%02x"
                  ", expected 0x%02x: overlapping memory", t, (void *)p[s],
                  n[s], bad, bad >= 0 ? p[s][bad] : 0, v);
            if (tu_rand(&seed) % 4 == 0) {
                size_t m = 1 + (size_t)(tu_rand(&seed) % (2 * bs));
                unsigned char *q = uvas_realloc(p[s], m);
                CHECK(q != NULL, "thread %d: realloc(%zu) failed", t, m);
                size_t keep = m < n[s] ? m : n[s];
                bad = tu_find_not(q, keep, v);
                CHECK(bad < 0, "thread %d: realloc lost byte %ld", t, bad);
                p[s] = q;
                n[s] = m;
                gen[s]++;
                memset(q, pat(t, s, gen[s]), m);
                continue;
            }
            CHECK_OK(uvas_try_free(p[s]));
            p[s] = NULL;
            continue;
        }
        unsigned shift = (unsigned)(tu_rand(&seed) % 18);
        size_t m = 1 + (size_t)(tu_rand(&seed) % ((size_t)1 << shift));
        if (m > 3 * bs)
            m = 1 + m % (3 * bs);
        unsigned kind = (unsigned)(tu_rand(&seed) % 4);
        unsigned char *q;
        if (kind == 0)
            q = uvas_malloc(m);
        else if (kind == 1)
            q = uvas_malloc_hint(m, 1 + (unsigned)(tu_rand(&seed) % 2));
        else if (kind == 2)
            q = uvas_calloc(1, m);
        else
            q = uvas_aligned_alloc(64, m, 0);
        CHECK(q != NULL, "thread %d: allocation of %zu failed: %s", t, m,
              uvas_last_error());
        CHECK((uintptr_t)q % 16 == 0, "thread %d: %p not 16-aligned", t,
              (void *)q);
        if (kind == 2) {
            long bad = tu_find_not(q, m, 0);
            CHECK(bad < 0, "thread %d: calloc memory byte %ld not zero", t,
                  bad);
        }
        struct uvas_ptr_info info;
        CHECK_OK(uvas_query(q + m - 1, &info));
        CHECK(info.alloc_base == q && info.alloc_size == m,
              "thread %d: query of a fresh allocation: base %p size %zu, "
              "expected %p %zu", t, info.alloc_base, info.alloc_size,
              (void *)q, m);
        p[s] = q;
        n[s] = m;
        gen[s]++;
        memset(q, pat(t, s, gen[s]), m);
    }
    for (unsigned s = 0; s < SLOTS; s++)
        if (p[s]) {
            long bad = tu_find_not(p[s], n[s], pat(t, s, gen[s]));
            CHECK(bad < 0, "thread %d: final check byte %ld", t, bad);
            CHECK_OK(uvas_try_free(p[s]));
        }
    return NULL;
}

int main(void)
{
    tu_deadline(58);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    tu_init_env();
    bs = tu_range().block_size;
    struct uvas_stats s0 = tu_stats();

    pthread_barrier_init(&start, NULL, NT);
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0,
              "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);

    /* Everything was freed: the heaps are back where they started. */
    struct uvas_stats s1 = tu_stats();
    for (int h = 0; h < UVAS_HEAP_COUNT; h++) {
        CHECK_EQ(s1.heap[h].allocations, s0.heap[h].allocations,
                 "live allocations after all threads freed theirs");
        CHECK_EQ(s1.heap[h].used_current, s0.heap[h].used_current,
                 "used bytes after all threads freed theirs");
    }
    CHECK_OK(uvas_finalize());
    return 0;
}
