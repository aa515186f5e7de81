/*
 * Accesses a kernel's arguments did not name (pointer chasing: a table of
 * pointers to other allocations, read from memory):
 *  - launched UVAS_KERNEL_IDEMPOTENT, the kernel faults, uvas makes those
 *    allocations reachable and runs it again: every target written, and
 *    the statistics count the faults and at least one replay;
 *  - launched without it: UVAS_ERR_INVAL naming the first address, and the
 *    targets unchanged (the stores went to the scratch area);
 *  - a pointer to freed memory, and one outside the range: UVAS_ERR_NOT_OWNED
 *    naming the address, even with IDEMPOTENT; the other targets' values
 *    stay those the kernel wrote;
 *  - afterwards a good launch works, and nothing is held.
 */
#include "check.h"

struct args {
    uint64_t table;
    uint32_t n, value;
};

#define N 8

int main(void)
{
    tu_init_device("64M", "64K");
    uvas_kernel_t *k = tu_kernel("chase");
    uint64_t *table = uvas_malloc(N * 8);
    uint32_t *target[N];
    for (int i = 0; i < N; i++) {
        target[i] = uvas_malloc(100000); /* own blocks: 2 each */
        CHECK(target[i], "uvas_malloc: %s", uvas_last_error());
        target[i][0] = 0xdead;
        table[i] = (uintptr_t)target[i];
    }
    struct args a = {(uintptr_t)table, N, 1000};
    char want[64];

    /* Not idempotent: the first fault fails the launch. */
    int st = tu_launch(k, N, &a, sizeof a);
    CHECK(st == UVAS_ERR_INVAL, "no IDEMPOTENT: %s, expected UVAS_ERR_INVAL", uvas_strerror(st));
    snprintf(want, sizeof want, "%p", (void *)target[0]);
    int named = 0;
    for (int i = 0; i < N; i++) {
        snprintf(want, sizeof want, "%p", (void *)target[i]);
        named += strstr(uvas_last_error(), want) != NULL;
    }
    CHECK(named == 1 && strstr(uvas_last_error(), "IDEMPOTENT"),
          "the message names no target, or does not say what to do: %s", uvas_last_error());
    printf("  not idempotent: %s\n", uvas_last_error());
    for (int i = 0; i < N; i++)
        CHECK(target[i][0] == 0xdead, "target %d written (%#x) by a failed launch", i,
              target[i][0]);

    /* Idempotent: run again with the targets reachable. */
    struct uvas_stats s0 = tu_stats();
    uint32_t g[3] = {1, 1, 1};
    CHECK_OK(uvas_kernel_launch(k, g, &a, sizeof a, UVAS_KERNEL_IDEMPOTENT));
    for (int i = 0; i < N; i++)
        CHECK(target[i][0] == 1000u + (uint32_t)i, "target %d = %#x after the replay", i,
              target[i][0]);
    struct uvas_stats s1 = tu_stats();
    CHECK(s1.kernel_faults - s0.kernel_faults >= N && s1.kernel_replays > s0.kernel_replays,
          "faults %llu, replays %llu: not counted",
          (unsigned long long)(s1.kernel_faults - s0.kernel_faults),
          (unsigned long long)(s1.kernel_replays - s0.kernel_replays));
    printf("  idempotent: %llu faults, %llu replays, every target written\n",
           (unsigned long long)(s1.kernel_faults - s0.kernel_faults),
           (unsigned long long)(s1.kernel_replays - s0.kernel_replays));

    /* Freed memory. */
    uvas_free(target[3]);
    uintptr_t freed = table[3];
    a.value = 2000;
    st = uvas_kernel_launch(k, g, &a, sizeof a, UVAS_KERNEL_IDEMPOTENT);
    snprintf(want, sizeof want, "%p", (void *)freed);
    CHECK(st == UVAS_ERR_NOT_OWNED && strstr(uvas_last_error(), want),
          "freed pointer: %s: %s (expected UVAS_ERR_NOT_OWNED naming %s)", uvas_strerror(st),
          uvas_last_error(), want);
    printf("  freed: %s\n", uvas_last_error());

    /* Outside the range. */
    table[3] = 0x1000;
    st = uvas_kernel_launch(k, g, &a, sizeof a, UVAS_KERNEL_IDEMPOTENT);
    CHECK(st == UVAS_ERR_NOT_OWNED && strstr(uvas_last_error(), "0x1000") &&
              strstr(uvas_last_error(), "outside"),
          "outside the range: %s: %s", uvas_strerror(st), uvas_last_error());
    printf("  outside: %s\n", uvas_last_error());

    uint32_t *again = uvas_malloc(100000);
    CHECK(again, "uvas_malloc: %s", uvas_last_error());
    table[3] = (uintptr_t)again;
    a.value = 3000;
    CHECK_OK(uvas_kernel_launch(k, g, &a, sizeof a, UVAS_KERNEL_IDEMPOTENT));
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
