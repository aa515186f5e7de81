/*
 * Accesses a kernel's arguments did not name (pointer chasing: a table of
 * pointers to other allocations, read from memory), when they do not wait
 * (waiting: test-gpu-wait):
 *  - with UVAS_KERNEL_NO_WAIT and without IDEMPOTENT: UVAS_ERR_INVAL naming
 *    the address, the targets unchanged (the stores went to the sink);
 *  - NO_WAIT with IDEMPOTENT: uvas runs the kernel again with the targets
 *    reachable (a replay counted), every target written;
 *  - a pointer to freed memory, and one outside the range: UVAS_ERR_NOT_OWNED
 *    naming the address, waiting or not, idempotent or not;
 *  - afterwards a good launch works (idempotent: on a device where faults
 *    cannot wait it replays), and nothing is held.
 */
#include "check.h"

struct args {
    uint64_t table;
    uint32_t n, value;
};

#define N 8
#define M 64

static uint32_t *target[N];
static uint64_t *table;

static void expect_named(int st, int want, const void *p, const char *word, const char *what)
{
    char a[32];
    snprintf(a, sizeof a, "%p", p);
    CHECK(st == want && strstr(uvas_last_error(), a) && strstr(uvas_last_error(), word),
          "%s: %s: '%s' (expected %s naming %s and saying '%s')", what, uvas_strerror(st),
          uvas_last_error(), uvas_strerror(want), a, word);
    printf("  %s: %s\n", what, uvas_last_error());
}

int main(void)
{
    tu_init_device("64M", "64K");
    uvas_kernel_t *k = tu_kernel("chase");
    table = uvas_malloc(M * 8);
    for (int i = 0; i < N; i++) {
        target[i] = uvas_malloc(100000); /* own blocks: 2 each */
        CHECK(target[i], "uvas_malloc: %s", uvas_last_error());
        target[i][0] = 0xdead;
    }
    for (int i = 0; i < M; i++)
        table[i] = (uintptr_t)target[i % N];
    struct args a = {(uintptr_t)table, N, 1000};
    uint32_t g1[3] = {1, 1, 1};

    /* Not waiting, not idempotent: the first fault fails the launch. */
    int st = uvas_kernel_launch(k, g1, &a, sizeof a, UVAS_KERNEL_NO_WAIT);
    int named = 0;
    for (int i = 0; i < N; i++) {
        char want[32];
        snprintf(want, sizeof want, "%p", (void *)target[i]);
        named += strstr(uvas_last_error(), want) != NULL;
    }
    CHECK(st == UVAS_ERR_INVAL && named == 1 && strstr(uvas_last_error(), "IDEMPOTENT"),
          "NO_WAIT: %s: %s", uvas_strerror(st), uvas_last_error());
    printf("  NO_WAIT: %s\n", uvas_last_error());
    for (int i = 0; i < N; i++)
        CHECK(target[i][0] == 0xdead, "target %d written (%#x) by a failed launch", i,
              target[i][0]);

    /* Not waiting, idempotent: run again with the targets reachable. */
    struct uvas_stats s0 = tu_stats(), s1;
    CHECK_OK(uvas_kernel_launch(k, g1, &a, sizeof a, UVAS_KERNEL_NO_WAIT |
                                                     UVAS_KERNEL_IDEMPOTENT));
    for (int i = 0; i < N; i++)
        CHECK(target[i][0] == 1000u + (uint32_t)i, "replayed: target %d = %#x", i,
              target[i][0]);
    s1 = tu_stats();
    CHECK(s1.kernel_replays > s0.kernel_replays, "no replay counted");
    printf("  NO_WAIT | IDEMPOTENT: %llu replay(s), every target written\n",
           (unsigned long long)(s1.kernel_replays - s0.kernel_replays));

    /* Freed memory and outside the range, every way of launching. */
    uvas_free(target[3]);
    const void *freed = target[3];
    table[3] = (uintptr_t)freed;
    const unsigned ways[] = {0, UVAS_KERNEL_IDEMPOTENT, UVAS_KERNEL_NO_WAIT,
                             UVAS_KERNEL_NO_WAIT | UVAS_KERNEL_IDEMPOTENT};
    for (int w = 0; w < 4; w++)
        expect_named(uvas_kernel_launch(k, g1, &a, sizeof a, ways[w]), UVAS_ERR_NOT_OWNED,
                     freed, "no live uvas allocation", "freed");
    table[3] = 0x1000;
    for (int w = 0; w < 4; w++)
        expect_named(uvas_kernel_launch(k, g1, &a, sizeof a, ways[w]), UVAS_ERR_NOT_OWNED,
                     (void *)0x1000, "outside", "outside the range");
    /* Past the range by 2^(32 + shift): a block index cut to 32 bits
     * would be target 0's block (uvas.glsl refuses it by the high word). */
    struct uvas_range_desc rd;
    CHECK_OK(uvas_range(&rd));
    unsigned shift = (unsigned)__builtin_ctzll(rd.block_size);
    const void *wraps = (const char *)target[0] + (1ull << (32 + shift));
    table[3] = (uintptr_t)wraps;
    uvas_gpu_hold_t *h0; /* target 0's translation set throughout the launches */
    CHECK_OK(uvas_gpu_hold_range(target[0], 4, &h0));
    for (int w = 0; w < 4; w++)
        expect_named(uvas_kernel_launch(k, g1, &a, sizeof a, ways[w]), UVAS_ERR_NOT_OWNED,
                     wraps, "outside", "an index that would wrap");
    uvas_gpu_release(h0);
    CHECK(target[0][0] == a.value, "target 0 = %#x: written through an address 2^%u past "
          "it", target[0][0], 32 + shift);

    uint32_t *again = uvas_malloc(100000);
    CHECK(again, "uvas_malloc: %s", uvas_last_error());
    table[3] = (uintptr_t)again;
    a.value = 3000;
    CHECK_OK(uvas_kernel_launch(k, g1, &a, sizeof a, UVAS_KERNEL_IDEMPOTENT));
    for (int i = 0; i < N; i++)
        CHECK((i == 3 ? again : target[i])[0] == 3000u + (uint32_t)i,
              "target %d = %#x after a good launch", i, (i == 3 ? again : target[i])[0]);
    for (int i = 0; i < N; i++)
        if (i != 3)
            CHECK_OK(uvas_migrate(target[i], 100000, UVAS_LOC_HOST, 0));
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
