/*
 * Accesses a kernel's arguments did not name (pointer chasing: a table of
 * pointers to other allocations, read from memory):
 *  - by default the faulting accesses wait while uvas makes their blocks
 *    reachable: every target written; an atomic add through the chased
 *    pointers (4096 invocations over 8 targets) gives exactly 512 each
 *    (every access executed once: no replay), and the statistics count
 *    faults and served waits, no replay;
 *  - with UVAS_KERNEL_NO_WAIT and without IDEMPOTENT: UVAS_ERR_INVAL naming
 *    the address, the targets unchanged (the stores went to the sink);
 *  - NO_WAIT with IDEMPOTENT: uvas runs the kernel again with the targets
 *    reachable (a replay counted), every target written;
 *  - a pointer to freed memory, and one outside the range: UVAS_ERR_NOT_OWNED
 *    naming the address, waiting or not, idempotent or not;
 *  - afterwards a good launch works, and nothing is held.
 */
#include "check.h"

struct args {
    uint64_t table;
    uint32_t n, value;
};

#define N 8
#define M 4096

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
    uvas_kernel_t *k = tu_kernel("chase"), *add = tu_kernel("chase-add");
    table = uvas_malloc(M * 8);
    for (int i = 0; i < N; i++) {
        target[i] = uvas_malloc(100000); /* own blocks: 2 each */
        CHECK(target[i], "uvas_malloc: %s", uvas_last_error());
        target[i][0] = 0xdead;
    }
    for (int i = 0; i < M; i++)
        table[i] = (uintptr_t)target[i % N];
    struct args a = {(uintptr_t)table, N, 1000};
    uint32_t g1[3] = {1, 1, 1}, gm[3] = {M / 64, 1, 1};

    /* Waiting: served while the kernel runs. */
    struct uvas_stats s0 = tu_stats();
    CHECK_OK(uvas_kernel_launch(k, g1, &a, sizeof a, 0));
    for (int i = 0; i < N; i++)
        CHECK(target[i][0] == 1000u + (uint32_t)i, "waiting: target %d = %#x", i, target[i][0]);
    for (int i = 0; i < N; i++)
        target[i][0] = 0;
    struct args b = {(uintptr_t)table, M, 0};
    CHECK_OK(uvas_kernel_launch(add, gm, &b, sizeof b, 0));
    for (int i = 0; i < N; i++)
        CHECK(target[i][0] == M / N, "waiting atomics: target %d = %u, expected %u (an access "
              "ran twice or not at all)", i, target[i][0], M / N);
    struct uvas_stats s1 = tu_stats();
    CHECK(s1.kernel_faults - s0.kernel_faults >= 2 * N &&
              s1.kernel_fault_waits - s0.kernel_fault_waits >= 2 * N &&
              s1.kernel_replays == s0.kernel_replays,
          "faults %llu, waits served %llu, replays %llu",
          (unsigned long long)(s1.kernel_faults - s0.kernel_faults),
          (unsigned long long)(s1.kernel_fault_waits - s0.kernel_fault_waits),
          (unsigned long long)(s1.kernel_replays - s0.kernel_replays));
    printf("  waiting: %llu faults, %llu blocks served while the kernels waited, no replay; "
           "atomics exact\n", (unsigned long long)(s1.kernel_faults - s0.kernel_faults),
           (unsigned long long)(s1.kernel_fault_waits - s0.kernel_fault_waits));

    /* Not waiting, not idempotent: the first fault fails the launch. */
    for (int i = 0; i < N; i++)
        target[i][0] = 0xdead;
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
    s0 = tu_stats();
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

    uint32_t *again = uvas_malloc(100000);
    CHECK(again, "uvas_malloc: %s", uvas_last_error());
    table[3] = (uintptr_t)again;
    a.value = 3000;
    CHECK_OK(uvas_kernel_launch(k, g1, &a, sizeof a, 0));
    for (int i = 0; i < N; i++)
        CHECK((i == 3 ? again : target[i])[0] == 3000u + (uint32_t)i,
              "target %d = %#x after a good launch", i, (i == 3 ? again : target[i])[0]);
    for (int i = 0; i < N; i++)
        if (i != 3)
            CHECK_OK(uvas_migrate(target[i], 100000, UVAS_LOC_HOST, 0));
    uvas_kernel_free(k);
    uvas_kernel_free(add);
    CHECK_OK(uvas_finalize());
    return 0;
}
