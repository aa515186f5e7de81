/*
 * No lost, torn or stale data while two threads migrate overlapping
 * ranges (device tier needed): migrator 0 moves [0, 4 blocks + 100) and
 * random sub-ranges of it, migrator 1 moves [2 blocks + 7, 6 blocks) and
 * random sub-ranges of it, each to the device and back, both at once and
 * for a fixed number of calls (every call returns 0). Meanwhile three
 * writer threads own disjoint 8-byte words spread over all six blocks and
 * keep storing an increasing counter into them, first reading each word
 * back: it must hold the value the writer last stored (no lost write, no
 * stale read). A reader thread checks words nobody writes: they keep the
 * random pattern they were filled with. At the end every owned word holds
 * its writer's last value and every other byte its pattern.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

#define WRITERS 3
#define BLOCKS 6
#define STRIDE 37 /* words between two owned words */
#define CALLS 1000 /* uvas_migrate calls per migrator */

static uint64_t *area, *pattern;
static size_t bs;
static atomic_long calls_done;

static uint64_t pattern_of(size_t i)
{
    return pattern[i];
}

static void *migrator(void *arg)
{
    int m = (int)(intptr_t)arg;
    char *base = (char *)area;
    size_t lo = m == 0 ? 0 : 2 * bs + 7;
    size_t hi = m == 0 ? 4 * bs + 100 : BLOCKS * bs;
    uint64_t rng = 0x1234567ull + (uint64_t)m;
    for (int c = 0; c < CALLS; c++) {
        size_t off = lo, n = hi - lo;
        if (c % 3 == 2) { /* a random piece of this migrator's range */
            off = lo + tu_rand(&rng) % (hi - lo);
            n = 1 + tu_rand(&rng) % (hi - off);
        }
        int to = (c / 2 + m) % 2 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE;
        int rc = uvas_migrate(base + off, n, to, 0);
        CHECK(rc == 0, "migrator %d, call %d: uvas_migrate(+%zu, %zu, %s) returned %d (%s)", m,
              c, off, n, uvas_residence_name(to), rc, uvas_strerror(rc));
        atomic_fetch_add(&calls_done, 1);
    }
    return NULL;
}

int main(void)
{
    tu_deadline(55);
    struct uvas_range_desc d = tu_init_device("1G", "64K");
    bs = d.block_size;
    size_t len = BLOCKS * bs;
    area = uvas_aligned_alloc(bs, len, 0);
    CHECK(area != NULL, "uvas_aligned_alloc");
    size_t words = len / sizeof *area;
    pattern = malloc(len);
    CHECK(pattern != NULL, "malloc");
    uint64_t rng = 0xabcdefull;
    for (size_t i = 0; i < words; i++)
        pattern[i] = tu_rand(&rng) | 1;
    memcpy(area, pattern, len);
    /* Writer t owns words t, t + STRIDE, t + 2 STRIDE, ... over all six
     * blocks (check.h's owned words). */
    size_t per = (words + STRIDE - 1) / STRIDE;
    struct tu_owners o = {.area = area, .words = words, .writers = WRITERS,
                          .pattern = pattern_of, .unit = "block", .unit_words = bs / 8,
                          .read_step = 5};
    for (int t = 0; t < WRITERS; t++) {
        size_t *w = malloc(per * sizeof *w), n = 0;
        CHECK(w != NULL, "malloc");
        for (size_t i = (size_t)t; i < words; i += STRIDE)
            w[n++] = i;
        o.word[t] = w;
        o.nword[t] = n;
    }
    struct uvas_stats s0 = tu_stats();
    tu_owners_start(&o);
    pthread_t mt[2];
    for (int m = 0; m < 2; m++)
        CHECK(pthread_create(&mt[m], NULL, migrator, (void *)(intptr_t)m) == 0,
              "pthread_create");
    for (int m = 0; m < 2; m++)
        pthread_join(mt[m], NULL);
    tu_owners_stop(&o);

    tu_owners_check_moved(&o, area, len);
    struct uvas_stats s1 = tu_stats();
    printf("%ld migrate calls: %llu blocks to device, %llu to host, %llu CPU faults on device "
           "blocks; writers %llu/%llu/%llu passes, reader %llu\n",
           atomic_load(&calls_done),
           (unsigned long long)(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE]),
           (unsigned long long)(s1.migrations[UVAS_RES_HOST] - s0.migrations[UVAS_RES_HOST]),
           (unsigned long long)(s1.faults_device - s0.faults_device),
           (unsigned long long)o.last[0], (unsigned long long)o.last[1],
           (unsigned long long)o.last[2], (unsigned long long)o.reads);
    CHECK(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE] >= 50,
          "too few blocks moved to the device for the test to mean anything");
    for (int t = 0; t < WRITERS; t++)
        free((void *)o.word[t]);
    free(o.owner);
    free(pattern);
    CHECK_OK(uvas_try_free(area));
    CHECK_OK(uvas_finalize());
    return 0;
}
