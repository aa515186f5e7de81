/*
 * Arrays (include/uvas.glsl, uvas_array): a kernel that translates each
 * array once and adds the delta of its base's run computes what the plain
 * one does, and reaches directly exactly what the launch holds in
 * consecutive device memory.
 *  - c = a + s*b over 12-13 blocks of 64 KiB each, four workgroups in a
 *    grid-stride loop, b and c at offsets that do not start a block: the
 *    GPU's first touch places c in consecutive slots (the tier hands out
 *    its lowest free slot), so c's whole array is direct; every element
 *    right on the CPU;
 *  - a hole: after the CPU takes a back, three blockers take the lowest
 *    slots and the middle one is freed, so a's next placement puts its
 *    first block in the hole and its second past the next blocker: a's
 *    direct reach ends with its first block (a run that ignored device
 *    addresses would read the blocker's slot: wrong values), and every
 *    element is still right (the rest translates);
 *  - under the "host" policy nothing is direct (runs are device memory
 *    only), every access is counted, the values are right;
 *  - every launch, each invocation adds one to a counter through
 *    uvas_array_addr (atomics on an array go through its address), and
 *    the runs' address is the same in specialization constant 2036, in
 *    the table's header (where a user's pipeline that leaves 2036 0
 *    finds it) and in uvas_gpu_info.
 */
#include "check.h"

struct args {
    uint64_t a, b, c, out;
    float s;
    uint32_t n;
};

#define N 200000 /* 800 KB: 12 or 13 blocks each */
#define BLOCK (64u << 10)

static void launch(uvas_kernel_t *k, float *a, float *b, float *c, uint64_t *out, float s)
{
    struct args x = {(uintptr_t)a, (uintptr_t)b, (uintptr_t)c, (uintptr_t)out, s, N};
    out[3] = 0;
    CHECK_OK(uvas_kernel_launch(k, (uint32_t[3]){4, 1, 1}, &x, sizeof x, 0));
    /* Every invocation added one through uvas_array_addr. */
    CHECK(out[3] == 4 * 64, "atomics through an array counted %llu invocations of 256",
          (unsigned long long)out[3]);
    /* A user's pipeline that does not set constant 2036 reads the runs'
     * address from the table's header: it must be the constant's. */
    struct uvas_gpu_info gi;
    CHECK_OK(uvas_gpu_info(&gi));
    CHECK(out[4] && out[4] == out[5] && out[4] == gi.runs_address,
          "the runs' address: constant 2036 %#llx, the header %#llx, uvas_gpu_info %#llx",
          (unsigned long long)out[4], (unsigned long long)out[5],
          (unsigned long long)gi.runs_address);
}

static void expect_triad(const char *what, const float *c, uint32_t times)
{
    for (uint32_t i = 0; i < N; i++)
        CHECK(c[i] == (float)(times * i), "%s: c[%u] = %g, expected %u", what, i, c[i],
              times * i);
}

/* Bytes from p to the end of its block. */
static uint64_t rest_of_block(const void *p)
{
    return BLOCK - (uintptr_t)p % BLOCK;
}

static void run(const char *policy, int host)
{
    tu_init_device_policy("64M", "64K", policy);
    uvas_kernel_t *k = tu_kernel("array");
    float *a = uvas_malloc(N * sizeof *a);
    float *b0 = uvas_malloc((N + 100) * sizeof *b0), *c0 = uvas_malloc((N + 7) * sizeof *c0);
    uint64_t *out = uvas_malloc(64);
    CHECK(a && b0 && c0 && out, "uvas_malloc: %s", uvas_last_error());
    float *b = b0 + 100, *c = c0 + 7;
    for (uint32_t i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    struct uvas_stats s0 = tu_stats();
    launch(k, a, b, c, out, 0.5f);
    struct uvas_stats s1 = tu_stats();
    if (!host)
        tu_expect_blocks(c, N * sizeof *c, UVAS_RES_DEVICE, "c, placed by the GPU's first touch");
    uint64_t d[3] = {out[0], out[1], out[2]};
    expect_triad(policy, c, 2);
    if (host) {
        tu_expect_blocks(a, N * sizeof *a, UVAS_RES_HOST, "a under the host policy");
        CHECK(!d[0] && !d[1] && !d[2], "host-resident arrays reached directly: %llu %llu %llu "
              "bytes", (unsigned long long)d[0], (unsigned long long)d[1],
              (unsigned long long)d[2]);
        CHECK(s1.kernel_accesses > s0.kernel_accesses,
              "no device access counted for host-resident blocks read through arrays");
        printf("  host: nothing direct, %llu accesses counted, right\n",
               (unsigned long long)(s1.kernel_accesses - s0.kernel_accesses));
    } else {
        CHECK(d[2] >= N * sizeof *c, "c, placed in one launch, reached directly for %llu of "
              "its %zu bytes (its blocks' slots are not consecutive, or the runs are not "
              "published)", (unsigned long long)d[2], N * sizeof *c);
        printf("  %s: direct reach a %llu, b %llu, c %llu bytes; right\n", policy,
               (unsigned long long)d[0], (unsigned long long)d[1], (unsigned long long)d[2]);

        /* The hole. */
        for (uint32_t i = 0; i < N; i++)
            a[i] = (float)(3 * i);
        tu_expect_blocks(a, N * sizeof *a, UVAS_RES_HOST, "a, written by the CPU");
        char *blk[3];
        for (int i = 0; i < 3; i++) {
            blk[i] = uvas_malloc(BLOCK);
            CHECK(blk[i], "uvas_malloc: %s", uvas_last_error());
            memset(blk[i], 0x5a, BLOCK);
            CHECK_OK(uvas_migrate(blk[i], BLOCK, UVAS_LOC_DEVICE, 0));
        }
        uvas_free(blk[1]);
        launch(k, a, b, c, out, 2.0f);
        expect_triad("a around a hole", c, 7);
        CHECK(out[0] == rest_of_block(a), "a placed around a hole: reached directly for %llu "
              "bytes, expected %llu (its first block's rest: the second is not next to it)",
              (unsigned long long)out[0], (unsigned long long)rest_of_block(a));
        for (int i = 0; i < 3; i += 2)
            for (size_t j = 0; j < BLOCK; j++)
                CHECK(blk[i][j] == 0x5a, "blocker %d byte %zu = %#x: a kernel wrote past its "
                      "array's run", i, j, (unsigned)(unsigned char)blk[i][j]);
        printf("  around a hole: a reached directly for its first block's %llu bytes; right\n",
               (unsigned long long)out[0]);
        uvas_free(blk[0]);
        uvas_free(blk[2]);
    }
    uvas_kernel_free(k);
    uvas_free(a);
    uvas_free(b0);
    uvas_free(c0);
    uvas_free(out);
    CHECK_OK(uvas_finalize());
}

int main(void)
{
    run("first-touch", 0);
    run("host", 1);
    return 0;
}
