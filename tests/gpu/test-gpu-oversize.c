/*
 * A launch over more memory than the device tier holds (UVAS_DEVICE_SIZE
 * 1M with 64K blocks: 16 device blocks; a triad over three arrays of 19
 * blocks each). The launch moves what fits ahead of its holds and holds
 * each block as soon as it is on the device, so:
 *  - its own blocks never evict each other (no eviction at all here: the
 *    tier starts empty), where moving the whole set ahead of the holds
 *    made later blocks evict earlier ones and move them back;
 *  - the tier holds 16 blocks, the rest are reached in place on the host;
 *  - the result is right, twice.
 */
#include "check.h"

struct args {
    uint64_t a, b, c;
    float s;
    uint32_t n;
};

int main(void)
{
    tu_deadline(60);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_setenv("UVAS_DEVICE_SIZE", "1M");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    uvas_kernel_t *k = tu_kernel("triad");
    const uint32_t n = 300000; /* 1.2 MB: 19 blocks each */
    float *a = uvas_malloc(n * sizeof *a), *b = uvas_malloc(n * sizeof *b);
    float *c = uvas_malloc(n * sizeof *c);
    CHECK(a && b && c, "uvas_malloc: %s", uvas_last_error());
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    struct args x = {(uintptr_t)a, (uintptr_t)b, (uintptr_t)c, 0.5f, n};
    for (int round = 0; round < 2; round++) {
        struct uvas_stats s0 = tu_stats();
        CHECK_OK(tu_launch(k, n, &x, sizeof x));
        struct uvas_stats s1 = tu_stats();
        CHECK(s1.evictions == s0.evictions, "round %d: the launch's blocks evicted each other "
              "(%llu evictions)", round, (unsigned long long)(s1.evictions - s0.evictions));
        CHECK(s1.tier[UVAS_RES_DEVICE].blocks <= 16, "round %d: %llu device blocks, the tier "
              "holds 16", round, (unsigned long long)s1.tier[UVAS_RES_DEVICE].blocks);
        for (uint32_t i = 0; i < n; i++)
            CHECK(c[i] == (float)(2 * i), "round %d: c[%u] = %g, expected %u", round, i, c[i],
                  2 * i);
        printf("  round %d: right; %llu device blocks, %llu moved there, no eviction\n", round,
               (unsigned long long)s1.tier[UVAS_RES_DEVICE].blocks,
               (unsigned long long)(s1.migrations[UVAS_RES_DEVICE] -
                                    s0.migrations[UVAS_RES_DEVICE]));
    }
    uvas_kernel_free(k);
    uvas_free(a);
    uvas_free(b);
    uvas_free(c);
    CHECK_OK(uvas_finalize());
    return 0;
}
