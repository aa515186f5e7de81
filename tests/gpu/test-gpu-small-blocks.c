/*
 * Kernels over a range in blocks of 4 and 8 KiB at the default base
 * (2^45): include/uvas.glsl's range test compared the address itself
 * with 2^(32 + block shift), which lies below such a range, so every
 * access of every kernel failed as outside the range (found by review:
 * `uvas-exp -b 4K`). Each block size: a kernel adds 1 to every word of 1
 * MiB (launched with its arguments scanned, and again over a hold with no
 * scan); then the same kernel given an address exactly 2^(32 + shift)
 * past the allocation, whose 32-bit block index wraps onto the
 * allocation's own blocks, must fail naming it and leave the
 * allocation's words alone.
 */
#include "check.h"

struct inc_args {
    uint64_t x;
    uint32_t n, by;
};

static void one(const char *block, unsigned shift)
{
    struct uvas_range_desc d = tu_init_device("256M", block);
    CHECK(d.block_size == (size_t)1 << shift, "block size %zu, asked %s", d.block_size, block);
    enum { LEN = 1 << 20, N = LEN / 4 };
    uint32_t *p = uvas_malloc(LEN);
    CHECK(p != NULL, "uvas_malloc");
    for (uint32_t i = 0; i < N; i++)
        p[i] = i;
    uvas_kernel_t *k = tu_kernel("inc");
    struct inc_args a = {(uintptr_t)p, N, 1};
    uint32_t groups[3] = {N / 64, 1, 1};
    int rc = uvas_kernel_launch(k, groups, &a, sizeof a, 0);
    if (rc == UVAS_ERR_NO_DEVICE)
        SKIP("no device runs kernels here: %s", uvas_last_error());
    CHECK(rc == UVAS_OK, "blocks of %s: a launch over 1 MiB: %s", block, uvas_last_error());
    uvas_gpu_hold_t *h;
    CHECK_OK(uvas_gpu_hold_range(p, LEN, &h));
    rc = uvas_kernel_launch(k, groups, &a, sizeof a, UVAS_KERNEL_NO_SCAN);
    CHECK(rc == UVAS_OK, "blocks of %s: a launch over a hold: %s", block, uvas_last_error());
    uvas_gpu_release(h); /* the CPU's reads wait for it */
    for (uint32_t i = 0; i < N; i++)
        CHECK(p[i] == i + 2, "blocks of %s: word %u is %u, not %u", block, i, p[i], i + 2);

    /* An index that wraps: refused, not read as the allocation's. */
    struct inc_args wild = {(uintptr_t)p + ((uint64_t)1 << (32 + shift)), 64, 100};
    rc = uvas_kernel_launch(k, (uint32_t[3]){1, 1, 1}, &wild, sizeof wild, UVAS_KERNEL_NO_SCAN);
    CHECK(rc != UVAS_OK, "blocks of %s: a kernel reached %#llx, 2^%u past its allocation",
          block, (unsigned long long)wild.x, 32 + shift);
    for (uint32_t i = 0; i < 64; i++)
        CHECK(p[i] == i + 2, "blocks of %s: word %u became %u through an address 2^%u past it",
              block, i, p[i], 32 + shift);
    uvas_kernel_free(k);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    printf("blocks of %s: kernels reach the range; an index that wraps is refused\n", block);
}

int main(void)
{
    tu_deadline(90);
    one("4K", 12);
    one("8K", 13);
    one("64K", 16);
    return 0;
}
