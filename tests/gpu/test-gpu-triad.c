/*
 * A kernel computes on plain uvas_malloc memory (no hints), and the CPU
 * reads the result:
 *  - c = a + s*b over several blocks, a and b written by the CPU (host
 *    resident), c untouched: every element right on the CPU afterwards;
 *  - c's blocks were placed by the GPU's first touch (first-touch: on the
 *    device), and a's and b's moved to the device (first-touch moves a
 *    block an agent of the other side uses);
 *  - run again after the CPU read c back and wrote a: right again (the
 *    translations follow the blocks wherever they went);
 *  - a launch holds its blocks only while it runs: after it, none is held
 *    (a migration of all three to the host and back completes), and the
 *    statistics count the launches and translations;
 *  - a fresh output's blocks, first touched by a kernel, are placed on the
 *    device with one copy-engine submission for all their zero fills.
 */
#include "check.h"

struct args {
    uint64_t a, b, c;
    float s;
    uint32_t n;
};

int main(void)
{
    tu_init_device("64M", "64K");
    uvas_kernel_t *k = tu_kernel("triad");
    const uint32_t n = 300000; /* 1.2 MB: about 19 blocks each */
    float *a = uvas_malloc(n * sizeof *a), *b = uvas_malloc(n * sizeof *b);
    float *c = uvas_malloc(n * sizeof *c);
    CHECK(a && b && c, "uvas_malloc: %s", uvas_last_error());
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    tu_expect_blocks(c, n * sizeof *c, UVAS_RES_UNPOPULATED, "c before the kernel");
    struct args x = {(uintptr_t)a, (uintptr_t)b, (uintptr_t)c, 0.5f, n};
    CHECK_OK(tu_launch(k, n, &x, sizeof x));
    tu_expect_blocks(c, n * sizeof *c, UVAS_RES_DEVICE, "c placed by the GPU's first touch");
    tu_expect_blocks(a, n * sizeof *a, UVAS_RES_DEVICE, "a, which the GPU read");
    for (uint32_t i = 0; i < n; i++)
        CHECK(c[i] == (float)(2 * i), "c[%u] = %g, expected %u", i, c[i], 2 * i);

    for (uint32_t i = 0; i < n; i++)
        a[i] = (float)(3 * i);
    x.s = 2.0f;
    /* Settled on the host first: the CPU's sequential reads of c start
     * read-ahead migrations that may still be in flight, and a block
     * another agent holds when the launch gathers its moves is moved
     * alone after it (one submission, or more in pieces), which the count
     * below would take for unbatched work. */
    CHECK_OK(uvas_migrate(c, n * sizeof *c, UVAS_LOC_HOST, 0));
    CHECK_OK(uvas_migrate(a, n * sizeof *a, UVAS_LOC_HOST, 0));
    struct uvas_stats s0 = tu_stats();
    CHECK_OK(tu_launch(k, n, &x, sizeof x));
    struct uvas_stats s1 = tu_stats();
    /* The CPU's writes of a and reads of c took them to the host; the
     * launch brings them back together, a stage of blocks per copy, not
     * a block at a time. */
    unsigned long long moved = s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE];
    unsigned long long subs = s1.copy_submissions - s0.copy_submissions;
    CHECK(moved >= n * sizeof(float) / (64 << 10) && subs < moved / 2,
          "second run: %llu blocks moved to the device in %llu copy submissions", moved, subs);
    for (uint32_t i = 0; i < n; i++)
        CHECK(c[i] == (float)(7 * i), "second run: c[%u] = %g, expected %u", i, c[i], 7 * i);

    void *all[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(uvas_migrate(all[i], n * sizeof(float), UVAS_LOC_HOST, 0));
        CHECK_OK(uvas_migrate(all[i], n * sizeof(float), UVAS_LOC_DEVICE, 0));
    }
    /* A fresh output's blocks, first touched by the kernel, are placed
     * with one copy submission for all their zero fills (a and b are on
     * the device: nothing else to copy). */
    float *d = uvas_malloc(n * sizeof *d);
    CHECK(d, "uvas_malloc: %s", uvas_last_error());
    x.c = (uintptr_t)d;
    s0 = tu_stats();
    CHECK_OK(tu_launch(k, n, &x, sizeof x));
    s1 = tu_stats();
    tu_expect_blocks(d, n * sizeof *d, UVAS_RES_DEVICE, "d placed by the GPU's first touch");
    CHECK(s1.copy_submissions - s0.copy_submissions == 1,
          "the kernel's first touch of d (%zu blocks) took %llu copy submissions, expected 1",
          n * sizeof *d / (64 << 10), (unsigned long long)(s1.copy_submissions - s0.copy_submissions));
    for (uint32_t i = 0; i < n; i++)
        CHECK(d[i] == (float)(7 * i), "fresh output: d[%u] = %g, expected %u", i, d[i], 7 * i);
    uvas_free(d);
    for (uint32_t i = 0; i < n; i++)
        CHECK(c[i] == (float)(7 * i) && a[i] == (float)(3 * i), "after migrations: element %u",
              i);
    struct uvas_stats st = tu_stats();
    CHECK(st.kernel_launches == 3, "kernel_launches %llu, expected 3",
          (unsigned long long)st.kernel_launches);
    CHECK(st.kernel_translations >= 3 * (n * sizeof(float) / (64 << 10)),
          "kernel_translations %llu: fewer than the blocks of a, b and c",
          (unsigned long long)st.kernel_translations);
    CHECK(st.kernel_faults == 0 && st.kernel_replays == 0, "faults %llu, replays %llu",
          (unsigned long long)st.kernel_faults, (unsigned long long)st.kernel_replays);
    printf("  triad over %u floats: right three times; %llu translations\n", n,
           (unsigned long long)st.kernel_translations);
    uvas_kernel_free(k);
    uvas_free(a);
    uvas_free(b);
    uvas_free(c);
    CHECK_OK(uvas_finalize());
    return 0;
}
