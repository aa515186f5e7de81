/*
 * A kernel run's submissions failing (UVAS_INJECT=dma: vkQueueSubmit of a
 * copy batch or of a chunk of a kernel run, gpu/run.c). A run of 40
 * launches goes out in chunks of 8, 16 and 16:
 *  - the second chunk's submission fails: the launch fails, saying the
 *    launches submitted before it ran; the first chunk's 8 increments
 *    landed, none of the rest, and nothing is left held (the blocks
 *    migrate afterwards);
 *  - the first chunk's submission fails: nothing ran, and the message
 *    does not claim that anything did;
 *  - disarmed, the same batch runs whole; injected[dma] counted each;
 *  - a launch's zero fills of a fresh allocation (one batch for its 8
 *    untouched blocks) fail: the launch still runs and is right (the
 *    blocks start on the host, zero, and move as for any launch).
 */
#include <string.h>

#include "inject/inject-util.h"

struct inc_args {
    uint64_t x;
    uint32_t n, by;
};

#define N 4096u
#define RUN 40

static void expect_x(const uint32_t *x, uint32_t add, const char *what)
{
    for (uint32_t i = 0; i < N; i++)
        CHECK(x[i] == i + add, "%s: x[%u] = %u, expected %u", what, i, x[i], i + add);
}

/* x on the device, then injection armed: the run's holds copy nothing,
 * so the run's own submissions are the only ones counted; one failure
 * injected (counted before disarming, which starts the counts afresh). */
static char msg[1024]; /* the failed launch's message */

static int run_armed(uint32_t *x, struct uvas_launch *l, const char *spec)
{
    CHECK_OK(uvas_migrate(x, N * 4, UVAS_LOC_DEVICE, 0));
    ti_arm(spec);
    int st = uvas_kernel_launch_batch(l, RUN);
    snprintf(msg, sizeof msg, "%s", uvas_last_error());
    CHECK(tu_stats().injected[UVAS_INJ_DMA] == 1, "injected[dma] under %s: %llu, expected 1", spec,
          (unsigned long long)tu_stats().injected[UVAS_INJ_DMA]);
    ti_arm("");
    return st;
}

int main(void)
{
    tu_init_device("256M", "64K");
    uvas_kernel_t *k = tu_kernel("inc");
    uint32_t *x = uvas_malloc(N * 4);
    CHECK(x != NULL, "uvas_malloc: %s", uvas_last_error());
    for (uint32_t i = 0; i < N; i++)
        x[i] = i;
    struct inc_args a = {(uintptr_t)x, N, 1};
    static struct uvas_launch l[RUN];
    for (int i = 0; i < RUN; i++)
        l[i] = (struct uvas_launch){k, {(N + 63) / 64, 1, 1}, &a, sizeof a, 0};

    /* the second chunk's submission fails */
    int st = run_armed(x, l, "dma:2");
    CHECK(st == UVAS_ERR_SYS, "a failed second chunk: status %d (%s), expected UVAS_ERR_SYS",
          st, uvas_strerror(st));
    CHECK(strstr(msg, "vkQueueSubmit") && strstr(msg, "the launches submitted before it ran"),
          "the message names the submission and what ran: '%s'", msg);
    printf("  second chunk refused: %s\n", msg);
    expect_x(x, 8, "the first chunk's 8 increments, none after");
    CHECK_OK(uvas_migrate(x, N * 4, UVAS_LOC_DEVICE, 0)); /* nothing left held */
    CHECK_OK(uvas_migrate(x, N * 4, UVAS_LOC_HOST, 0));

    /* the first chunk's submission fails */
    st = run_armed(x, l, "dma:1");
    CHECK(st == UVAS_ERR_SYS, "a failed first chunk: status %d, expected UVAS_ERR_SYS", st);
    CHECK(strstr(msg, "vkQueueSubmit") && !strstr(msg, "submitted before it ran"),
          "nothing ran, and the message says no more: '%s'", msg);
    expect_x(x, 8, "a refused first chunk: nothing ran");

    /* disarmed: the whole run */
    CHECK_OK(uvas_kernel_launch_batch(l, RUN));
    expect_x(x, 8 + RUN, "the batch again, whole");

    /* the placement's fills fail */
    const uint32_t ny = 8 * (64u << 10) / 4;
    uint32_t *y = uvas_malloc(ny * 4);
    CHECK(y != NULL, "uvas_malloc: %s", uvas_last_error());
    tu_expect_blocks(y, ny * 4, UVAS_RES_UNPOPULATED, "y before its launch");
    struct inc_args b = {(uintptr_t)y, ny, 5};
    ti_arm("dma:1");
    CHECK_OK(tu_launch(k, ny, &b, sizeof b));
    CHECK(tu_stats().injected[UVAS_INJ_DMA] == 1, "injected[dma] for the fills: %llu, expected 1",
          (unsigned long long)tu_stats().injected[UVAS_INJ_DMA]);
    ti_arm("");
    for (uint32_t i = 0; i < ny; i++)
        CHECK(y[i] == 5, "after failed fills: y[%u] = %u, expected 5", i, y[i]);
    uvas_free(y);

    uvas_free(x);
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    printf("test-gpu-submit-fail: a run's later chunk refused, its first refused, a launch's fills failed: ok\n");
    return 0;
}
