/*
 * No write through a CPU view is lost when its block migrates: one thread
 * keeps updating words of blocks advised accessed-by-CPU (so a CPU access
 * maps the device memory instead of migrating) while another moves the
 * blocks to the host and back. Every word must equal the same updates
 * applied to a plain copy.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

#define NB 8

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
    uint64_t rng = 1;
    for (size_t u = 0; u < 400000 || atomic_load(&cycles) < 64; u++) {
        uint64_t r = tu_rand(&rng);
        a[r % words] ^= r;
        shadow[r % words] ^= r;
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    size_t lost = 0;
    for (size_t i = 0; i < words; i++)
        lost += a[i] != shadow[i];
    struct uvas_stats st = tu_stats();
    printf("%llu blocks to the device, %llu back; %zu of %zu words differ\n",
           (unsigned long long)st.migrations[UVAS_RES_DEVICE],
           (unsigned long long)st.migrations[UVAS_RES_HOST], lost, words);
    CHECK(lost == 0, "%zu words lost their updates", lost);
    CHECK(st.migrations[UVAS_RES_HOST] >= 64, "too few migrations happened to test anything");
    free(shadow);
    uvas_free(a);
    CHECK_OK(uvas_finalize());
    return 0;
}
