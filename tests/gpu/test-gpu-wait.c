/*
 * Faulting accesses wait in the kernel while uvas makes their blocks
 * reachable (pointer chasing: a table of pointers to other allocations,
 * read from memory; the arguments name only the table):
 *  - every target written by a plain launch (no IDEMPOTENT needed);
 *  - an atomic add through the chased pointers (4096 invocations over 8
 *    targets) gives exactly 512 each: every access executed once, no
 *    replay;
 *  - the statistics count the faults and the blocks served while waiting,
 *    and no replay;
 *  - a freed target among them fails the launch (UVAS_ERR_NOT_OWNED naming
 *    it), the waits of the others end too, and the next launch works.
 * Skips (77) on a device where a kernel cannot wait (lavapipe ends every
 * shader loop after 65535 iterations): there faults replay or fail
 * (test-gpu-faults).
 */
#include "check.h"

struct args {
    uint64_t table;
    uint32_t n, value;
};

#define N 8
#define M 4096

int main(void)
{
    tu_init_device("64M", "64K");
    uvas_kernel_t *k = tu_kernel("chase"), *add = tu_kernel("chase-add");
    struct uvas_gpu_info gi;
    CHECK_OK(uvas_gpu_info(&gi));
    if (!gi.fault_waits)
        SKIP("faults cannot wait in a kernel on this device (shader loops are bounded): "
             "test-gpu-faults covers replays and errors here");
    uint64_t *table = uvas_malloc(M * 8);
    uint32_t *target[N];
    for (int i = 0; i < N; i++) {
        target[i] = uvas_malloc(100000); /* own blocks: 2 each */
        CHECK(target[i], "uvas_malloc: %s", uvas_last_error());
        target[i][0] = 0xdead;
    }
    for (int i = 0; i < M; i++)
        table[i] = (uintptr_t)target[i % N];
    uint32_t g1[3] = {1, 1, 1}, gm[3] = {M / 64, 1, 1};
    struct args a = {(uintptr_t)table, N, 1000};
    struct uvas_stats s0 = tu_stats();
    CHECK_OK(uvas_kernel_launch(k, g1, &a, sizeof a, 0));
    for (int i = 0; i < N; i++)
        CHECK(target[i][0] == 1000u + (uint32_t)i, "target %d = %#x", i, target[i][0]);
    for (int i = 0; i < N; i++)
        target[i][0] = 0;
    struct args b = {(uintptr_t)table, M, 0};
    CHECK_OK(uvas_kernel_launch(add, gm, &b, sizeof b, 0));
    for (int i = 0; i < N; i++)
        CHECK(target[i][0] == M / N, "atomics: target %d = %u, expected %u (an access ran "
              "twice or not at all)", i, target[i][0], M / N);
    struct uvas_stats s1 = tu_stats();
    CHECK(s1.kernel_faults - s0.kernel_faults >= 2 * N &&
              s1.kernel_fault_waits - s0.kernel_fault_waits >= 2 * N &&
              s1.kernel_replays == s0.kernel_replays,
          "faults %llu, waits served %llu, replays %llu",
          (unsigned long long)(s1.kernel_faults - s0.kernel_faults),
          (unsigned long long)(s1.kernel_fault_waits - s0.kernel_fault_waits),
          (unsigned long long)(s1.kernel_replays - s0.kernel_replays));
    printf("  %llu faults, %llu blocks served while the kernels waited, no replay; atomics "
           "exact\n", (unsigned long long)(s1.kernel_faults - s0.kernel_faults),
           (unsigned long long)(s1.kernel_fault_waits - s0.kernel_fault_waits));

    uvas_free(target[5]);
    char want[32];
    snprintf(want, sizeof want, "%p", (void *)target[5]);
    int st = uvas_kernel_launch(k, g1, &a, sizeof a, 0);
    CHECK(st == UVAS_ERR_NOT_OWNED && strstr(uvas_last_error(), want),
          "a freed target: %s: %s (expected UVAS_ERR_NOT_OWNED naming %s)", uvas_strerror(st),
          uvas_last_error(), want);
    printf("  freed: %s\n", uvas_last_error());
    target[5] = uvas_malloc(100000);
    table[5] = (uintptr_t)target[5];
    a.value = 2000;
    CHECK_OK(uvas_kernel_launch(k, g1, &a, sizeof a, 0));
    for (int i = 0; i < N; i++)
        CHECK(target[i][0] == 2000u + (uint32_t)i, "after: target %d = %#x", i, target[i][0]);
    uvas_kernel_free(k);
    uvas_kernel_free(add);
    CHECK_OK(uvas_finalize());
    return 0;
}
