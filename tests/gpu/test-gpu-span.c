/*
 * Spans (include/uvas.glsl, uvas_span): a kernel that keeps one
 * translation per array computes what the plain one does.
 *  - c = a + s*b over many blocks of 64 KiB, four workgroups in a
 *    grid-stride loop (every invocation walks every block of each array,
 *    leaving and re-entering the block its span keeps), b and c at
 *    offsets that do not start a block: every element right on the CPU;
 *  - again after the CPU wrote a (its blocks moved back to the host and
 *    to the device again: the spans of a new launch see the new place);
 *  - under the "host" policy the blocks stay on the host and are read in
 *    place: spans keep no host block, so every access is still counted
 *    (the device's counted accesses grow by at least one sample a
 *    workgroup per array), and the values are right.
 */
#include "check.h"

struct args {
    uint64_t a, b, c;
    float s;
    uint32_t n;
};

#define N 200000 /* 800 KB: 12 or 13 blocks each */

static void run(const char *policy, int pass)
{
    tu_init_device_policy("64M", "64K", policy);
    uvas_kernel_t *k = tu_kernel("span");
    float *a = uvas_malloc(N * sizeof *a);
    float *b0 = uvas_malloc((N + 100) * sizeof *b0), *c0 = uvas_malloc((N + 7) * sizeof *c0);
    CHECK(a && b0 && c0, "uvas_malloc: %s", uvas_last_error());
    float *b = b0 + 100, *c = c0 + 7;
    for (uint32_t i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    struct args x = {(uintptr_t)a, (uintptr_t)b, (uintptr_t)c, 0.5f, N};
    uint32_t groups[3] = {4, 1, 1};
    struct uvas_stats s0 = tu_stats();
    CHECK_OK(uvas_kernel_launch(k, groups, &x, sizeof x, 0));
    struct uvas_stats s1 = tu_stats();
    if (pass == 0) /* before the CPU reads it back */
        tu_expect_blocks(c, N * sizeof *c, UVAS_RES_DEVICE, "c, placed by the GPU's first touch");
    for (uint32_t i = 0; i < N; i++)
        CHECK(c[i] == (float)(2 * i), "%s: c[%u] = %g, expected %u", policy, i, c[i], 2 * i);
    if (pass == 1) {
        tu_expect_blocks(a, N * sizeof *a, UVAS_RES_HOST, "a under the host policy");
        /* Three arrays, four workgroups: each workgroup's first invocation
         * counts one access in every UVAS_COUNT_PERIOD of its own. */
        CHECK(s1.kernel_accesses > s0.kernel_accesses,
              "%s: no device access counted for host-resident blocks read through spans",
              policy);
    }

    for (uint32_t i = 0; i < N; i++)
        a[i] = (float)(3 * i);
    x.s = 2.0f;
    CHECK_OK(uvas_kernel_launch(k, groups, &x, sizeof x, 0));
    for (uint32_t i = 0; i < N; i++)
        CHECK(c[i] == (float)(7 * i), "%s, second launch: c[%u] = %g, expected %u", policy, i,
              c[i], 7 * i);
    printf("  %s: right twice (%llu device accesses counted)\n", policy,
           (unsigned long long)(tu_stats().kernel_accesses - s0.kernel_accesses));
    uvas_kernel_free(k);
    uvas_free(a);
    uvas_free(b0);
    uvas_free(c0);
    CHECK_OK(uvas_finalize());
}

int main(void)
{
    run("first-touch", 0);
    run("host", 1);
    return 0;
}
