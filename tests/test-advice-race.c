/*
 * No write is lost while advice and policies churn (issue: hot-cold with
 * read-mostly advice set and unset reverted whole blocks to older data).
 * For each policy: a writer stores round r into every word of an area and
 * reads it all back; a toggler meanwhile sets and unsets every advice
 * (read-mostly, preferred location, accessed-by-CPU) and migrates the
 * area both ways; the policy's tick moves blocks too. Every word read
 * back must be the writer's last store. Beside it the device writes a
 * second area (uvas_device_access, the copy engine) under the same churn
 * and the CPU checks every byte of each device write. Bounded by rounds
 * and time.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"
#include "uvas_policy.h"

#define WORDS_PER_BLOCK_STRIDE 64 /* words checked per 4 KiB (all bytes written) */

static uint64_t *area;
static size_t words;
static unsigned char *dev_area; /* written by the device */
#define DEV_LEN ((size_t)4 << 20)
static atomic_int stop;
static atomic_ulong toggles;

static void churn(void *p, size_t len, unsigned i);

static void *toggler(void *arg)
{
    (void)arg;
    for (unsigned i = 0; !atomic_load(&stop); i++) {
        churn(area, words * sizeof *area, i);
        churn(dev_area, DEV_LEN, i + 1);
        atomic_fetch_add(&toggles, 1);
    }
    return NULL;
}

/* The device writes round v into every byte; the CPU reads it all back. */
static void *device_writer(void *arg)
{
    unsigned long *rounds = arg;
    for (unsigned v = 1; !atomic_load(&stop); v++) {
        CHECK_OK(uvas_device_access(dev_area, DEV_LEN, 1, (unsigned char)v));
        long bad = tu_find_not(dev_area, DEV_LEN, (unsigned char)v);
        CHECK(bad < 0, "device write %u: byte %ld holds %u", v, bad,
              bad < 0 ? 0 : dev_area[bad]);
        ++*rounds;
    }
    return NULL;
}

static void churn(void *p, size_t len, unsigned i)
{
    {
        CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_READ_MOSTLY, 0));
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_UNSET_READ_MOSTLY, 0));
        switch (i % 4) {
        case 0:
            CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_PREFERRED_LOCATION, UVAS_LOC_DEVICE));
            break;
        case 1:
            CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_UNSET_PREFERRED_LOCATION, 0));
            CHECK_OK(uvas_migrate(p, len / 2, UVAS_LOC_HOST, 0));
            break;
        case 2:
            CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
            CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
            break;
        case 3:
            CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_UNSET_ACCESSED_BY_CPU, 0));
            break;
        }
    }
}

/* One policy: returns the number of rounds written and verified. */
static unsigned run(const char *policy, double seconds, unsigned max_rounds)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    tu_setenv("UVAS_BLOCK_SIZE", "2M");
    tu_setenv("UVAS_POLICY", policy);
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    size_t len = (size_t)16 << 20;
    words = len / sizeof *area;
    area = uvas_malloc(len);
    CHECK(area != NULL, "uvas_malloc(16 MiB)");
    dev_area = uvas_malloc(DEV_LEN);
    CHECK(dev_area != NULL, "uvas_malloc(4 MiB)");
    atomic_store(&stop, 0);
    atomic_store(&toggles, 0);
    unsigned long dev_rounds = 0;
    pthread_t th, dw;
    CHECK(pthread_create(&th, NULL, toggler, NULL) == 0, "pthread_create");
    CHECK(pthread_create(&dw, NULL, device_writer, &dev_rounds) == 0, "pthread_create");
    double t0 = tu_now_s();
    unsigned r;
    for (r = 1; r <= max_rounds && (tu_now_s() - t0 < seconds || atomic_load(&toggles) < 8); r++) {
        for (size_t i = 0; i < words; i++)
            area[i] = ((uint64_t)r << 32) | i;
        size_t stale = 0, first = SIZE_MAX;
        for (size_t i = 0; i < words; i++)
            if (area[i] != (((uint64_t)r << 32) | i)) {
                if (first == SIZE_MAX)
                    first = i;
                stale++;
            }
        CHECK(stale == 0, "policy %s, round %u: %zu of %zu words lost the last write (first "
              "at word %zu, block %zu, holds round %llu)", policy, r, stale, words, first,
              first * sizeof *area / d.block_size, (unsigned long long)(area[first] >> 32));
    }
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    pthread_join(dw, NULL);
    printf("  %-34s %u CPU rounds, %lu device rounds, %lu advice cycles, every word right\n",
           policy, r - 1, dev_rounds, atomic_load(&toggles));
    uvas_free(area);
    uvas_free(dev_area);
    CHECK_OK(uvas_finalize());
    return r - 1;
}

int main(void)
{
    tu_deadline(120);
    static const char *policies[] = {"first-touch",        "hot-cold:tick_ms=5",
                                     "hot-cold:tick_ms=5,sample=writes",
                                     "access-counter",     "read-mostly",
                                     "interleave",         "device"};
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
        run(policies[i], 1.5, 100000);
    printf("ok\n");
    return 0;
}
