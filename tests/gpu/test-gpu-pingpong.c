/*
 * The CPU and a kernel take turns on the same blocks, under every
 * built-in policy: each round the CPU adds 1 to every element, then the
 * kernel adds 2 (uvas_malloc memory, no hints). After 6 rounds every
 * element is its start plus 18, under first-touch, host, device,
 * interleave, access-counter, hot-cold and read-mostly; the blocks end
 * where the policy put them, and nothing is held after the launches.
 */
#include "check.h"

struct args {
    uint64_t x;
    uint32_t n, by;
};

static const char *policies[] = {"first-touch", "host", "device", "interleave",
                                 "access-counter:threshold=2", "hot-cold:tick_ms=5",
                                 "read-mostly"};

int main(void)
{
    for (size_t p = 0; p < sizeof policies / sizeof *policies; p++) {
        tu_init_device_policy("64M", "64K", policies[p]);
        uvas_kernel_t *k = tu_kernel("inc");
        const uint32_t n = 200000; /* 800 KB: 13 blocks */
        uint32_t *x = uvas_malloc(n * 4);
        CHECK(x, "uvas_malloc: %s", uvas_last_error());
        for (uint32_t i = 0; i < n; i++)
            x[i] = i * 3;
        struct args a = {(uintptr_t)x, n, 2};
        for (int r = 0; r < 6; r++) {
            for (uint32_t i = 0; i < n; i++)
                x[i] += 1;
            int st = tu_launch(k, n, &a, sizeof a);
            CHECK(st == UVAS_OK, "%s, round %d: %s: %s", policies[p], r, uvas_strerror(st),
                  uvas_last_error());
        }
        for (uint32_t i = 0; i < n; i++)
            CHECK(x[i] == i * 3 + 18, "%s: x[%u] = %u, expected %u", policies[p], i, x[i],
                  i * 3 + 18);
        struct uvas_range_info ri;
        CHECK_OK(uvas_query_range(x, n * 4, &ri));
        printf("  %-28s right after 6 rounds; blocks: %zu host, %zu device\n", policies[p],
               ri.blocks[UVAS_RES_HOST], ri.blocks[UVAS_RES_DEVICE]);
        /* Nothing held: every block can be taken (a migration completes). */
        CHECK_OK(uvas_migrate(x, n * 4, UVAS_LOC_HOST, 0));
        uvas_kernel_free(k);
        uvas_free(x);
        CHECK_OK(uvas_finalize());
    }
    return 0;
}
