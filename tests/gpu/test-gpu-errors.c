/*
 * Bad input to the kernel calls gets a clear error and changes nothing:
 *  - uvas_kernel_load: NULL, an empty or odd-sized buffer, a wrong magic,
 *    a truncated module, a module whose instruction runs past its end, no
 *    entry point of that name, a name too long, a kernel binding a
 *    resource of its own (set 0, binding 1), out NULL: UVAS_ERR_INVAL, a
 *    message naming the problem, *out NULL;
 *  - uvas_kernel_launch: k NULL, groups NULL or 0 or beyond the device's
 *    limit, arguments beyond the push-constant limit or not a multiple of
 *    4 or NULL with a size, unknown flags: UVAS_ERR_INVAL, and the memory
 *    the arguments name unchanged and not moved (still host-resident);
 *  - after uvas_finalize the kernel fails to launch (UVAS_ERR_NOT_INIT), and
 *    after uvas_init again too ("load it again"), and can still be freed;
 *    a kernel loaded again runs; uvas_gpu_info describes the
 *    device; uvas_gpu_hold of a pointer outside any allocation fails, and
 *    uvas_gpu_hold_range of an empty range, one outside any allocation,
 *    one that runs past its allocation's end (by a byte, or by a length
 *    that would wrap) or starts past it, each fails naming it and holds
 *    nothing.
 */
#include "check.h"

struct args {
    uint64_t x;
    uint32_t n, by;
};

#define EXPECT(expr, status, word)                                                        \
    do {                                                                                  \
        int st_ = (expr);                                                                 \
        CHECK(st_ == (status) && strstr(uvas_last_error(), (word)),                       \
              "%s: %s: '%s' (expected %s, a message saying '%s')", #expr,                 \
              uvas_strerror(st_), uvas_last_error(), uvas_strerror(status), (word));      \
        printf("  %-58.58s %s\n", #expr, uvas_last_error());                              \
    } while (0)

int main(void)
{
    tu_init_device("64M", "64K");
    uvas_kernel_t *k = tu_kernel("inc");
    size_t n;
    uint32_t *good = tu_spirv("inc", &n);
    uvas_kernel_t *o = (uvas_kernel_t *)1;

    EXPECT(uvas_kernel_load(NULL, n, "main", &o), UVAS_ERR_INVAL, "not a SPIR-V module");
    CHECK(o == NULL, "*out not cleared");
    EXPECT(uvas_kernel_load(good, 0, "main", &o), UVAS_ERR_INVAL, "not a SPIR-V module");
    EXPECT(uvas_kernel_load(good, n - 2, "main", &o), UVAS_ERR_INVAL, "whole words");
    uint32_t *bad = malloc(n);
    memcpy(bad, good, n);
    bad[0] = 0x12345678;
    EXPECT(uvas_kernel_load(bad, n, "main", &o), UVAS_ERR_INVAL, "magic");
    memcpy(bad, good, n);
    EXPECT(uvas_kernel_load(bad, n - 40, "main", &o), UVAS_ERR_INVAL, "runs past");
    memcpy(bad, good, n);
    bad[5] = (0xffffu << 16) | (bad[5] & 0xffff); /* first instruction: 65535 words */
    EXPECT(uvas_kernel_load(bad, n, "main", &o), UVAS_ERR_INVAL, "runs past");
    EXPECT(uvas_kernel_load(good, n, "other", &o), UVAS_ERR_INVAL, "no compute entry point");
    char longname[100];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    EXPECT(uvas_kernel_load(good, n, longname, &o), UVAS_ERR_INVAL, "characters");
    EXPECT(uvas_kernel_load(good, n, NULL, &o), UVAS_ERR_INVAL, "characters");
    EXPECT(uvas_kernel_load(good, n, "main", NULL), UVAS_ERR_INVAL, "out is NULL");
    size_t bn;
    void *binding = tu_spirv("binding", &bn);
    EXPECT(uvas_kernel_load(binding, bn, "main", &o), UVAS_ERR_INVAL, "binding 1");
    CHECK(o == NULL, "*out set by a failed load");
    free(binding);
    free(bad);
    free(good);

    const uint32_t cnt = 5000;
    uint32_t *x = uvas_malloc(cnt * 4);
    for (uint32_t i = 0; i < cnt; i++)
        x[i] = i;
    struct args a = {(uintptr_t)x, cnt, 1};
    struct uvas_gpu_info gi;
    CHECK_OK(uvas_gpu_info(&gi));
    CHECK(gi.device && gi.xlat_buffer && gi.set && gi.max_args >= 128, "uvas_gpu_info: "
          "device %p, table %p, set %p, max_args %u", (void *)gi.device,
          (void *)gi.xlat_buffer, (void *)gi.set, gi.max_args);
    uint32_t g[3] = {1, 1, 1}, g0[3] = {0, 1, 1}, gbig[3] = {UINT32_MAX, 1, 1};
    char big[1024] = {0};
    EXPECT(uvas_kernel_launch(NULL, g, &a, sizeof a, 0), UVAS_ERR_INVAL, "k is NULL");
    EXPECT(uvas_kernel_launch(k, NULL, &a, sizeof a, 0), UVAS_ERR_INVAL, "groups is NULL");
    EXPECT(uvas_kernel_launch(k, g0, &a, sizeof a, 0), UVAS_ERR_INVAL, "groups[0] = 0");
    EXPECT(uvas_kernel_launch(k, gbig, &a, sizeof a, 0), UVAS_ERR_INVAL, "the device takes");
    EXPECT(uvas_kernel_launch(k, g, big, gi.max_args + 4, 0), UVAS_ERR_INVAL,
           "push-constant limit");
    EXPECT(uvas_kernel_launch(k, g, &a, sizeof a - 2, 0), UVAS_ERR_INVAL, "multiple of 4");
    EXPECT(uvas_kernel_launch(k, g, NULL, sizeof a, 0), UVAS_ERR_INVAL, "at NULL");
    EXPECT(uvas_kernel_launch(k, g, &a, sizeof a, 0x80), UVAS_ERR_INVAL, "unknown flags");
    for (uint32_t i = 0; i < cnt; i++)
        CHECK(x[i] == i, "x[%u] = %u after refused launches", i, x[i]);
    tu_expect_blocks(x, cnt * 4, UVAS_RES_HOST, "x after refused launches");
    CHECK(tu_stats().kernel_launches == 0, "a refused launch ran");

    int local;
    const void *outside[1] = {&local};
    uvas_gpu_hold_t *h = (uvas_gpu_hold_t *)1;
    EXPECT(uvas_gpu_hold(outside, 1, &h), UVAS_ERR_NOT_OWNED, "no live uvas allocation");
    CHECK(h == NULL, "*out set by a failed hold");
    const void *inside[1] = {x};
    CHECK_OK(uvas_gpu_hold(inside, 1, &h));
    uvas_gpu_release(h);
    size_t bytes = cnt * 4;
    uint64_t held0 = tu_stats().kernel_translations;
    h = (uvas_gpu_hold_t *)1;
    EXPECT(uvas_gpu_hold_range(x, 0, &h), UVAS_ERR_INVAL, "len is 0");
    CHECK(h == NULL, "*out set by a failed range hold");
    EXPECT(uvas_gpu_hold_range(&local, 4, &h), UVAS_ERR_NOT_OWNED, "not inside one live");
    EXPECT(uvas_gpu_hold_range(x, bytes + 1, &h), UVAS_ERR_NOT_OWNED, "not inside one live");
    EXPECT(uvas_gpu_hold_range((char *)x + 8, SIZE_MAX - 4, &h), UVAS_ERR_NOT_OWNED,
           "not inside one live");
    EXPECT(uvas_gpu_hold_range((char *)x + bytes, 4, &h), UVAS_ERR_NOT_OWNED,
           "not inside one live");
    EXPECT(uvas_gpu_hold_range(x, 4, NULL), UVAS_ERR_INVAL, "out is NULL");
    CHECK(tu_stats().kernel_translations == held0, "a refused range hold held a block");
    CHECK_OK(uvas_gpu_hold_range((char *)x + bytes - 4, 4, &h));
    uvas_gpu_release(h);

    CHECK_OK(tu_launch(k, cnt, &a, sizeof a));
    CHECK(x[7] == 8, "x[7] = %u after a good launch", x[7]);
    CHECK_OK(uvas_finalize());
    EXPECT(uvas_kernel_launch(k, g, &a, sizeof a, 0), UVAS_ERR_NOT_INIT, "finalized");
    tu_init_device("64M", "64K");
    EXPECT(uvas_kernel_launch(k, g, &a, sizeof a, 0), UVAS_ERR_NOT_INIT, "load it again");
    uvas_kernel_free(k);
    k = tu_kernel("inc");
    x = uvas_malloc(cnt * 4);
    memset(x, 0, cnt * 4);
    a.x = (uintptr_t)x;
    CHECK_OK(tu_launch(k, cnt, &a, sizeof a));
    CHECK(x[cnt - 1] == 1, "x[last] = %u after a launch of a kernel loaded again", x[cnt - 1]);
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    uvas_kernel_free(NULL);
    return 0;
}
