/*
 * uvas_kernel_stats: what the device's compiler made of a kernel
 * (VK_KHR_pipeline_executable_properties), as its driver reports it.
 *  - the count alone (max 0), then every statistic: as many as counted,
 *    each named; a smaller max fills what fits and still counts them all,
 *    the same first one;
 *  - the launches' own pipeline is not the capturing one: the kernel runs
 *    and computes right after the call;
 *  - NULL kernel, NULL n, NULL out with max > 0 are refused;
 *  - after uvas_finalize (uvas is not started again implicitly, and the
 *    kernel's device objects are gone): refused, with a message saying so.
 * A driver that reports no statistics skips (77), saying so.
 */
#include <math.h>
#include <string.h>

#include "check.h"

struct triad_args {
    uint64_t a, b, c;
    float s;
    uint32_t n;
};

#define N 4096u
#define MAXS 64

int main(void)
{
    tu_init_device("64M", "64K");
    uvas_kernel_t *k = tu_kernel("triad");
    size_t n = 0;
    int st = uvas_kernel_stats(k, NULL, 0, &n);
    if (st == UVAS_ERR_NO_DEVICE)
        SKIP("the driver reports no kernel statistics: %s", uvas_last_error());
    CHECK(st == UVAS_OK, "uvas_kernel_stats (count): %s", uvas_last_error());
    CHECK(n >= 1 && n <= MAXS, "uvas_kernel_stats counted %zu statistics", n);

    static struct uvas_kernel_stat all[MAXS], one[1];
    size_t n2 = 0;
    CHECK(uvas_kernel_stats(k, all, MAXS, &n2) == UVAS_OK, "uvas_kernel_stats: %s",
          uvas_last_error());
    CHECK(n2 == n, "counted %zu, then %zu", n, n2);
    for (size_t i = 0; i < n; i++) {
        CHECK(all[i].name[0], "statistic %zu has no name", i);
        CHECK(isfinite(all[i].value), "%s = %g", all[i].name, all[i].value);
        printf("  %s = %g (%s)\n", all[i].name, all[i].value, all[i].description);
    }
    size_t n3 = 0;
    CHECK(uvas_kernel_stats(k, one, 1, &n3) == UVAS_OK, "uvas_kernel_stats (max 1): %s",
          uvas_last_error());
    CHECK(n3 == n, "max 1 counted %zu, not %zu", n3, n);
    CHECK(strcmp(one[0].name, all[0].name) == 0, "max 1 gave '%s', the full call '%s'",
          one[0].name, all[0].name);

    float *a = uvas_malloc(N * 4), *b = uvas_malloc(N * 4), *c = uvas_malloc(N * 4);
    CHECK(a && b && c, "uvas_malloc: %s", uvas_last_error());
    for (uint32_t i = 0; i < N; i++)
        a[i] = (float)i, b[i] = 1.0f, c[i] = -1.0f;
    struct triad_args ta = {(uintptr_t)a, (uintptr_t)b, (uintptr_t)c, 2.0f, N};
    CHECK(tu_launch(k, N, &ta, sizeof ta) == UVAS_OK, "launch after the statistics: %s",
          uvas_last_error());
    for (uint32_t i = 0; i < N; i++) /* triad.comp: c = a + s * b */
        CHECK(c[i] == (float)i + 2.0f, "c[%u] = %g, expected %g", i, c[i], (float)i + 2.0f);

    size_t m = 0;
    CHECK(uvas_kernel_stats(NULL, all, MAXS, &m) == UVAS_ERR_INVAL, "NULL kernel accepted");
    CHECK(strstr(uvas_last_error(), "uvas_kernel_stats"), "message: %s", uvas_last_error());
    CHECK(uvas_kernel_stats(k, all, MAXS, NULL) == UVAS_ERR_INVAL, "NULL n accepted");
    CHECK(uvas_kernel_stats(k, NULL, 2, &m) == UVAS_ERR_INVAL, "NULL out with max 2 accepted");

    uvas_free(a), uvas_free(b), uvas_free(c);
    CHECK(uvas_finalize() == UVAS_OK, "uvas_finalize: %s", uvas_last_error());
    st = uvas_kernel_stats(k, all, MAXS, &m);
    CHECK(st == UVAS_ERR_NOT_INIT, "after uvas_finalize: %s (%s)", uvas_strerror(st),
          uvas_last_error());
    CHECK(strstr(uvas_last_error(), "finalize"), "message: %s", uvas_last_error());
    uvas_kernel_free(k);
    printf("ok: %zu statistics\n", n);
    return 0;
}
