/*
 * Kernels are the device agent the policies hear: under
 * access-counter:threshold=3, a host block that kernels use is served in
 * place (through its imported pages) on the first two launches, counted
 * as the device's accesses, and promoted to the device on the third;
 * the data stays right throughout. Under host, it never moves. Under
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

int main(void)
{
    uvas_kernel_t *k;
    uint32_t *x = start("access-counter:threshold=3", &k, "inc");
    for (uint32_t i = 0; i < N; i++)
        x[i] = i;
    struct args a = {(uintptr_t)x, N, 1};
    for (int l = 1; l <= 3; l++) {
        struct uvas_stats s0 = tu_stats();
        CHECK_OK(tu_launch(k, N, &a, sizeof a));
        struct uvas_stats s1 = tu_stats();
        int res = l < 3 ? UVAS_RES_HOST : UVAS_RES_DEVICE;
        tu_expect_blocks(x, N * 4, res, l < 3 ? "served in place" : "promoted");
        CHECK(l == 3 || s1.device_remote > s0.device_remote, "launch %d: no remote service "
              "counted", l);
        printf("  access-counter, launch %d: %s (%llu blocks served in place)\n", l,
               uvas_residence_name(res),
               (unsigned long long)(s1.device_remote - s0.device_remote));
    }
    check_values(x, 3, "access-counter");
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());

    x = start("host", &k, "inc");
    for (uint32_t i = 0; i < N; i++)
        x[i] = i;
    for (int l = 0; l < 3; l++)
        CHECK_OK(tu_launch(k, N, &a, sizeof a));
    tu_expect_blocks(x, N * 4, UVAS_RES_HOST, "host policy");
    check_values(x, 3, "host");
    printf("  host: stays on the host, right\n");
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());

    x = start("first-touch", &k, "inc");
    a.x = (uintptr_t)x;
    CHECK_OK(tu_launch(k, N, &a, sizeof a)); /* untouched: zeros + 1 */
    tu_expect_blocks(x, N * 4, UVAS_RES_DEVICE, "first touch by a kernel");
    for (uint32_t i = 0; i < N; i++)
        CHECK(x[i] == 1, "first touch: x[%u] = %u", i, x[i]);
    printf("  first-touch: a kernel's first touch places on the device\n");
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
