/*
 * uvas_kernel_launch_batch: n launches as n calls of uvas_kernel_launch,
 * in fewer submissions.
 *  - five launches of two kernels, each reading what the one before wrote
 *    (x incremented in place three times, d = c + b after c = a + 2b): the
 *    results of running them one by one, in one submission;
 *  - launches with other flags between them start a new submission each;
 *  - a refused launch in the middle (groups 0) fails naming its index:
 *    the launches before it have run, none after it; refused first,
 *    nothing runs; n 0 runs nothing; NULL launches with n > 0 are refused;
 *  - kernels that touch memory their arguments do not name, all
 *    UVAS_KERNEL_IDEMPOTENT: the submission runs again with it reachable
 *    where a fault cannot wait (lavapipe), and every increment lands once;
 *  - 200 launches, recorded and submitted in chunks (gpu/run.c): an
 *    in-place chain c += b beside increments of x, each reading what the
 *    one before wrote across every chunk boundary, one run; and 40
 *    unnamed-memory launches over several chunks, replayed whole.
 */
#include <string.h>

#include "check.h"

struct inc_args {
    uint64_t x;
    uint32_t n, by;
};

struct triad_args {
    uint64_t a, b, c;
    float s;
    uint32_t n;
};

#define N 65536u
#define G ((N + 63) / 64)

static struct uvas_launch inc(uvas_kernel_t *k, struct inc_args *a, uint32_t *x, uint32_t by,
                              unsigned flags)
{
    *a = (struct inc_args){(uintptr_t)x, N, by};
    return (struct uvas_launch){k, {G, 1, 1}, a, sizeof *a, flags};
}

static void expect_x(const uint32_t *x, uint32_t add, const char *what)
{
    for (uint32_t i = 0; i < N; i++)
        CHECK(x[i] == i + add, "%s: x[%u] = %u, expected %u", what, i, x[i], i + add);
}

int main(void)
{
    tu_init_device("256M", "64K");
    uvas_kernel_t *ki = tu_kernel("inc"), *kt = tu_kernel("triad");
    uint32_t *x = uvas_malloc(N * 4);
    float *a = uvas_malloc(N * 4), *b = uvas_malloc(N * 4), *c = uvas_malloc(N * 4),
          *d = uvas_malloc(N * 4);
    CHECK(x && a && b && c && d, "uvas_malloc: %s", uvas_last_error());
    for (uint32_t i = 0; i < N; i++) {
        x[i] = i;
        a[i] = (float)i;
        b[i] = (float)(i % 1000);
    }

    /* order across kernels, one submission */
    struct uvas_stats s0 = tu_stats();
    struct inc_args ia[8];
    struct triad_args t1 = {(uintptr_t)a, (uintptr_t)b, (uintptr_t)c, 2.0f, N},
                      t2 = {(uintptr_t)c, (uintptr_t)b, (uintptr_t)d, 1.0f, N};
    struct uvas_launch l[8] = {inc(ki, &ia[0], x, 1, 0),
                               {kt, {G, 1, 1}, &t1, sizeof t1, 0},
                               inc(ki, &ia[1], x, 2, 0),
                               {kt, {G, 1, 1}, &t2, sizeof t2, 0},
                               inc(ki, &ia[2], x, 3, 0)};
    CHECK_OK(uvas_kernel_launch_batch(l, 5));
    expect_x(x, 6, "three increments in one batch");
    for (uint32_t i = 0; i < N; i++)
        CHECK(d[i] == (float)i + 3.0f * (float)(i % 1000), "d[%u] = %g, expected %g", i,
              (double)d[i], (double)((float)i + 3.0f * (float)(i % 1000)));
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.kernel_launches - s0.kernel_launches, 5, "launches counted");
    CHECK_EQ(s1.kernel_submissions - s0.kernel_submissions, 1, "one submission for five");

    /* other flags start another submission */
    l[0] = inc(ki, &ia[0], x, 1, 0);
    l[1] = inc(ki, &ia[1], x, 1, 0);
    l[2] = inc(ki, &ia[2], x, 1, UVAS_KERNEL_IDEMPOTENT);
    l[3] = inc(ki, &ia[3], x, 1, 0);
    CHECK_OK(uvas_kernel_launch_batch(l, 4));
    expect_x(x, 10, "four increments, flags 0 0 IDEMPOTENT 0");
    struct uvas_stats s2 = tu_stats();
    CHECK_EQ(s2.kernel_submissions - s1.kernel_submissions, 3, "a submission per run of flags");

    /* a refused launch stops the batch where it stands */
    l[0] = inc(ki, &ia[0], x, 1, 0);
    l[1] = inc(ki, &ia[1], x, 1, 0);
    l[2] = inc(ki, &ia[2], x, 1, 0);
    l[2].groups[0] = 0;
    l[3] = inc(ki, &ia[3], x, 1, 0);
    CHECK_STATUS(uvas_kernel_launch_batch(l, 4), UVAS_ERR_INVAL);
    CHECK(strstr(uvas_last_error(), "launch 2 of the 4") &&
              strstr(uvas_last_error(), "groups[0] = 0"),
          "the message names the launch and the fault: '%s'", uvas_last_error());
    printf("  refused in the middle: %s\n", uvas_last_error());
    expect_x(x, 12, "the two launches before the refused one ran, none after");
    l[0].groups[0] = 0;
    CHECK_STATUS(uvas_kernel_launch_batch(l, 4), UVAS_ERR_INVAL);
    CHECK(strstr(uvas_last_error(), "launch 0 of the 4"), "'%s'", uvas_last_error());
    expect_x(x, 12, "refused first: nothing ran");
    struct uvas_stats s3 = tu_stats();
    CHECK_OK(uvas_kernel_launch_batch(NULL, 0));
    CHECK_OK(uvas_kernel_launch_batch(l, 0));
    CHECK_STATUS(uvas_kernel_launch_batch(NULL, 2), UVAS_ERR_INVAL);
    CHECK(strstr(uvas_last_error(), "NULL"), "'%s'", uvas_last_error());
    CHECK_EQ(tu_stats().kernel_launches - s3.kernel_launches, 0, "nothing ran");

    /* memory the arguments do not name, every launch idempotent */
    l[0] = inc(ki, &ia[0], x, 1, UVAS_KERNEL_NO_SCAN | UVAS_KERNEL_IDEMPOTENT);
    l[1] = inc(ki, &ia[1], x, 1, UVAS_KERNEL_NO_SCAN | UVAS_KERNEL_IDEMPOTENT);
    CHECK_OK(uvas_kernel_launch_batch(l, 2));
    expect_x(x, 14, "two increments through faults, each landing once");
    struct uvas_stats s4 = tu_stats();
    printf("  unnamed memory: %llu faults, %llu replays\n",
           (unsigned long long)(s4.kernel_faults - s3.kernel_faults),
           (unsigned long long)(s4.kernel_replays - s3.kernel_replays));
    CHECK(s4.kernel_faults > s3.kernel_faults, "the kernels found no translation first");

    /* a long batch: chunks of it run while the next is recorded */
    enum { LONG = 200 };
    static struct uvas_launch ll[LONG];
    static struct inc_args lia[LONG];
    struct triad_args chain = {(uintptr_t)c, (uintptr_t)b, (uintptr_t)c, 1.0f, N};
    for (uint32_t i = 0; i < N; i++)
        c[i] = (float)(i % 7);
    for (int i = 0; i < LONG; i++)
        ll[i] = i % 2 ? inc(ki, &lia[i], x, 1, 0)
                      : (struct uvas_launch){kt, {G, 1, 1}, &chain, sizeof chain, 0};
    CHECK_OK(uvas_kernel_launch_batch(ll, LONG));
    struct uvas_stats s5 = tu_stats();
    expect_x(x, 14 + LONG / 2, "a hundred increments in a long batch");
    for (uint32_t i = 0; i < N; i++)
        CHECK(c[i] == (float)(i % 7) + (float)(LONG / 2) * (float)(i % 1000),
              "c[%u] = %g after %d in-place steps c += b, expected %g", i, (double)c[i],
              LONG / 2, (double)((float)(i % 7) + (float)(LONG / 2) * (float)(i % 1000)));
    CHECK_EQ(s5.kernel_launches - s4.kernel_launches, LONG, "launches counted");
    CHECK_EQ(s5.kernel_submissions - s4.kernel_submissions, 1, "one run for the long batch");
    for (int i = 0; i < 40; i++)
        ll[i] = inc(ki, &lia[i], x, 1, UVAS_KERNEL_NO_SCAN | UVAS_KERNEL_IDEMPOTENT);
    CHECK_OK(uvas_kernel_launch_batch(ll, 40));
    expect_x(x, 14 + LONG / 2 + 40, "forty increments through faults over several chunks");

    uvas_free(x), uvas_free(a), uvas_free(b), uvas_free(c), uvas_free(d);
    uvas_kernel_free(ki);
    uvas_kernel_free(kt);
    CHECK_OK(uvas_finalize());
    printf("test-gpu-batch: order, submissions, refusals, replays, long batches: ok\n");
    return 0;
}
