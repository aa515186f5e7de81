/*
 * include/shmem.glsl's shmem_my_pe and shmem_n_pes in a kernel: every
 * invocation of a kernel a PE launches after shmem_init reads that PE and
 * the job's size (run on 1, 2 and 4 PEs); PE 0 gathers what each PE's
 * kernel read, so the numbering is the job's. Before shmem_init and after
 * shmem_finalize a kernel reads 0 and 1.
 */
#include <shmem.h>

#include "check.h"

#define N 256

struct args {
    uint64_t out;
    uint32_t n;
};

static void expect_kernel_reads(uvas_kernel_t *k, int me, int n, const char *when)
{
    uint32_t *out = uvas_malloc(N * 8);
    CHECK(out != NULL, "uvas_malloc: %s", uvas_last_error());
    memset(out, 0xff, N * 8);
    struct args a = {(uintptr_t)out, N};
    CHECK_OK(tu_launch(k, N, &a, sizeof a));
    for (int i = 0; i < N; i++)
        CHECK(out[2 * i] == (uint32_t)me && out[2 * i + 1] == (uint32_t)n,
              "%s: invocation %d read PE %u of %u, expected %d of %d", when, i, out[2 * i],
              out[2 * i + 1], me, n);
    uvas_free(out);
}

int main(void)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    CHECK_OK(uvas_init(NULL));
    uvas_kernel_t *k = tu_kernel("pe");
    expect_kernel_reads(k, 0, 1, "before shmem_init");
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    k = tu_kernel("pe");
    expect_kernel_reads(k, me, n, "after shmem_init");
    static int seen[64][2];
    CHECK(n <= 64, "%d PEs", n);
    uint32_t *mine = uvas_malloc(8);
    struct args a = {(uintptr_t)mine, 1};
    CHECK_OK(tu_launch(k, 1, &a, sizeof a));
    int got[2] = {(int)mine[0], (int)mine[1]};
    shmem_int_put(seen[me], got, 2, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int p = 0; p < n; p++)
            CHECK(seen[p][0] == p && seen[p][1] == n, "PE %d's kernel read PE %d of %d", p,
                  seen[p][0], seen[p][1]);
    uvas_free(mine);
    uvas_kernel_free(k);
    shmem_finalize();
    if (me == 0)
        printf("test-gpu-shmem-pe: %d PE%s, every kernel read its PE\n", n, n == 1 ? "" : "s");
    return 0;
}
