/*
 * Kernels are the device agent the policies hear, through the accesses
 * they count (include/uvas.glsl): under access-counter, host blocks that
 * kernels touch lightly are served in place (through their imported
 * pages), and a launch that uses them heavily gets them promoted for the
 * next; the counts are exact for inc.comp's sample; the data stays right
 * throughout. Under host, it never moves. Under
 * first-touch, untouched memory a kernel writes first lands on the device,
 * memory the CPU wrote first moves there when the kernel uses it.
 */
#include "check.h"

struct args {
    uint64_t x;
    uint32_t n, by;
};

#define N 100000

static uint32_t *start(const char *policy, uvas_kernel_t **k, const char *spv)
{
    tu_init_device_policy("64M", "64K", policy);
    *k = tu_kernel(spv);
    uint32_t *x = uvas_malloc(N * 4);
    CHECK(x, "uvas_malloc: %s", uvas_last_error());
    return x;
}

static void check_values(const uint32_t *x, uint32_t base, const char *when)
{
    for (uint32_t i = 0; i < N; i++)
        CHECK(x[i] == base + i, "%s: x[%u] = %u, expected %u", when, i, x[i], base + i);
}

/* Accesses inc.comp's kernel makes over n elements as its counters see
 * them (include/uvas.glsl): the first invocation of workgroup w makes its
 * load (k = 0) and its store (k = 1), and counts access k when
 * (k + w) % 8 == 0, scaled back by 64 x 8. */
static uint64_t counted(uint32_t n)
{
    uint64_t c = 0;
    for (uint32_t w = 0; w < (n + 63) / 64; w++)
        for (uint32_t k = 0; k < 2; k++)
            c += (k + w) % 8 == 0 ? 64 * 8 : 0;
    return c;
}

int main(void)
{
    uvas_kernel_t *k;
    /* 64 KiB blocks of 16384 elements: a full pass counts 32768 accesses
     * per block (3456 in the last, 1696 elements), a pass over 256
     * elements 512 in block 0 (3 of them and their launches: 1539). */
    uint32_t *x = start("access-counter:threshold=3,gpu_threshold=2000", &k, "inc");
    for (uint32_t i = 0; i < N; i++)
        x[i] = i;
    struct args a = {(uintptr_t)x, 256, 1};
    for (int l = 1; l <= 3; l++) { /* lightly used: served in place */
        struct uvas_stats s0 = tu_stats();
        CHECK_OK(tu_launch(k, 256, &a, sizeof a));
        struct uvas_stats s1 = tu_stats();
        tu_expect_blocks(x, N * 4, UVAS_RES_HOST, "a block kernels touch lightly");
        CHECK(s1.device_remote > s0.device_remote, "launch %d: no remote service counted", l);
        CHECK(s1.kernel_accesses - s0.kernel_accesses == counted(256),
              "launch %d over 256 elements: %llu accesses counted, expected %llu", l,
              (unsigned long long)(s1.kernel_accesses - s0.kernel_accesses),
              (unsigned long long)counted(256));
    }
    printf("  access-counter: 3 light launches counted %llu accesses each, block 0 stays on "
           "the host\n", (unsigned long long)counted(256));
    a.n = N;
    struct uvas_stats s0 = tu_stats();
    CHECK_OK(tu_launch(k, N, &a, sizeof a)); /* hot: every block counts >= 2000 (the last, partly used, 3456) */
    struct uvas_stats s1 = tu_stats();
    tu_expect_blocks(x, N * 4, UVAS_RES_HOST, "the first heavy launch (served in place)");
    CHECK(s1.kernel_accesses - s0.kernel_accesses == counted(N),
          "a launch over %u elements: %llu accesses counted, expected %llu", N,
          (unsigned long long)(s1.kernel_accesses - s0.kernel_accesses),
          (unsigned long long)counted(N));
    CHECK_OK(tu_launch(k, N, &a, sizeof a)); /* the counts reached the policy */
    tu_expect_blocks(x, N * 4, UVAS_RES_DEVICE, "promoted after a heavy launch");
    printf("  access-counter: a heavy launch (%llu accesses counted) promotes every block on "
           "the next\n", (unsigned long long)counted(N));
    for (uint32_t i = 0; i < N; i++) {
        uint32_t want = i + (i < 256 ? 5 : 2);
        CHECK(x[i] == want, "access-counter: x[%u] = %u, expected %u", i, x[i], want);
    }
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());

    /* Without gpu_threshold, threshold counts the device's accesses too. */
    x = start("access-counter:threshold=3", &k, "inc");
    for (uint32_t i = 0; i < N; i++)
        x[i] = i;
    a = (struct args){(uintptr_t)x, N, 1};
    CHECK_OK(tu_launch(k, N, &a, sizeof a));
    tu_expect_blocks(x, N * 4, UVAS_RES_HOST, "first launch (served in place)");
    CHECK_OK(tu_launch(k, N, &a, sizeof a));
    tu_expect_blocks(x, N * 4, UVAS_RES_DEVICE, "threshold=3 passed by the first launch");
    check_values(x, 2, "access-counter:threshold=3");
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());

    x = start("host", &k, "inc");
    for (uint32_t i = 0; i < N; i++)
        x[i] = i;
    a.x = (uintptr_t)x;
    for (int l = 0; l < 3; l++)
        CHECK_OK(tu_launch(k, N, &a, sizeof a));
    tu_expect_blocks(x, N * 4, UVAS_RES_HOST, "host policy");
    check_values(x, 3, "host");
    printf("  host: stays on the host, right\n");
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());

    /* uvas_gpu_hold_range: a launch without the scan reaches the held
     * blocks only; the rest of the allocation is not touched, and what the
     * kernel counts in held host blocks reaches the policy. */
    x = start("access-counter:gpu_threshold=1000000", &k, "inc");
    const uint32_t per = 16384; /* elements of a 64 KiB block */
    for (uint32_t i = 0; i < per; i++)
        x[per + i] = i; /* block 1 on the host, the rest untouched */
    uvas_gpu_hold_t *h;
    CHECK_OK(uvas_gpu_hold_range(x + per, per * 4, &h));
    a = (struct args){(uintptr_t)(x + per), per, 1};
    struct uvas_stats h0 = tu_stats();
    uint32_t g1[3] = {per / 64, 1, 1};
    CHECK_OK(uvas_kernel_launch(k, g1, &a, sizeof a, UVAS_KERNEL_NO_SCAN));
    struct uvas_stats h1 = tu_stats();
    uvas_gpu_release(h);
    CHECK(h1.kernel_accesses - h0.kernel_accesses == counted(per),
          "a held range's kernel: %llu accesses counted, expected %llu",
          (unsigned long long)(h1.kernel_accesses - h0.kernel_accesses),
          (unsigned long long)counted(per));
    tu_expect_blocks(x, per * 4, UVAS_RES_UNPOPULATED, "block 0, not held");
    tu_expect_blocks(x + per, per * 4, UVAS_RES_HOST, "block 1, held and served in place");
    tu_expect_blocks(x + 2 * per, (N - 2 * per) * 4, UVAS_RES_UNPOPULATED, "blocks 2-6");
    for (uint32_t i = 0; i < per; i++)
        CHECK(x[per + i] == i + 1, "held range: x[%u] = %u", per + i, x[per + i]);
    printf("  uvas_gpu_hold_range: the kernel reached block 1 only, %llu accesses counted\n",
           (unsigned long long)counted(per));
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());

    x = start("first-touch", &k, "inc");
    a.x = (uintptr_t)x;
    a.n = N;
    CHECK_OK(tu_launch(k, N, &a, sizeof a)); /* untouched: zeros + 1 */
    tu_expect_blocks(x, N * 4, UVAS_RES_DEVICE, "first touch by a kernel");
    for (uint32_t i = 0; i < N; i++)
        CHECK(x[i] == 1, "first touch: x[%u] = %u", i, x[i]);
    printf("  first-touch: a kernel's first touch places on the device\n");
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
