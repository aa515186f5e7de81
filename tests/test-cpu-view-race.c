/*
 * No write through a CPU view is lost when its block migrates: one thread
 * keeps updating words of blocks advised accessed-by-CPU (so a CPU access
 * maps the device memory instead of migrating) while another moves the
 * blocks to the host and back. Every word must equal the same updates
 * applied to a plain copy.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "check.h"

#define NB 8

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t *a;
static size_t bs, words;
static atomic_int stop, cycles;

static void *mover(void *arg)
{
    (void)arg;
    for (int i = 0; !atomic_load(&stop); i++) {
        char *b = (char *)a + (size_t)(i % NB) * bs;
        CHECK_OK(uvas_migrate(b, bs, UVAS_LOC_HOST, 0));
        CHECK_OK(uvas_migrate(b, bs, UVAS_LOC_DEVICE, 0));
        atomic_fetch_add(&cycles, 1);
    }
    return NULL;
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    if (strstr(d.device_note, "CPU view of device blocks: none"))
        SKIP("the driver offers no CPU view of device memory: %s", d.device_note);
    bs = d.block_size;
    size_t len = NB * bs;
    words = len / sizeof *a;
    a = uvas_aligned_alloc(bs, len, 0);
    uint64_t *shadow = calloc(words, sizeof *shadow);
    CHECK(a && shadow, "allocation");
    memset(a, 0, len);
    CHECK_OK(uvas_advise(a, len, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
    CHECK_OK(uvas_migrate(a, len, UVAS_LOC_DEVICE, 0));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, mover, NULL) == 0, "pthread_create");
    /* Until 64 move cycles and either 400000 updates or 3 s: where views
     * are dear (NVIDIA: a copy to a dedicated allocation and a placed map,
     * ~0.2-8 ms per fault) and the mover fast, the writer spends most of its
     * time faulting, and a fixed count of updates took minutes. */
    uint64_t rng = 1;
    double t0 = now();
    size_t u = 0;
    for (bool more = true; more; u++) {
        uint64_t r = tu_rand(&rng);
        a[r % words] ^= r;
        shadow[r % words] ^= r;
        if ((u & 1023) == 0)
            more = atomic_load(&cycles) < 64 || (u < 400000 && now() - t0 < 3.0);
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    size_t lost = 0;
    for (size_t i = 0; i < words; i++)
        lost += a[i] != shadow[i];
    struct uvas_stats st = tu_stats();
    printf("%zu updates; %llu blocks to the device, %llu back; %zu of %zu words differ\n", u,
           (unsigned long long)st.migrations[UVAS_RES_DEVICE],
           (unsigned long long)st.migrations[UVAS_RES_HOST], lost, words);
    CHECK(lost == 0, "%zu words lost their updates", lost);
    CHECK(st.migrations[UVAS_RES_HOST] >= 64, "too few migrations happened to test anything");
    free(shadow);
    uvas_free(a);
    CHECK_OK(uvas_finalize());
    return 0;
}
