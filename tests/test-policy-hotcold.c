/*
 * hot-cold: with room for 4 blocks on the device and a fraction of 0.75
 * (3 blocks), the 3 blocks the device keeps touching are promoted by the
 * policy's tick, and when another 3 become hot the old ones are demoted to
 * make room. Waits (bounded) for the tick rather than timing anything.
 *
 * Thrashing: two sets of blocks hot in turn, a tick each, changed places
 * at every tick (as the main job's random workload did: 12377 migrations
 * each way). A block that has moved `thrash` (4) times stays where it is
 * for `window_ms` (1000) after each move: in 600 ms, at most 2 promotions
 * per block.
 */
#include <time.h>

#include "check.h"
#include "uvas_policy.h"

static size_t bs;
static unsigned char *p;

static void heat(const int *blocks, int n)
{
    for (int r = 0; r < 20; r++)
        for (int i = 0; i < n; i++)
            CHECK_OK(uvas_device_access(p + (size_t)blocks[i] * bs, 64, 0, 0));
}

/* Wait until exactly the blocks in `want` (of 8) are on the device. */
static void wait_for(const int *want, int n, const char *what)
{
    for (int tries = 0; tries < 400; tries++) {
        int ok = 1;
        for (int b = 0; b < 8 && ok; b++) {
            int hot = 0;
            for (int i = 0; i < n; i++)
                hot |= want[i] == b;
            ok = tu_residence(p + (size_t)b * bs) == (hot ? UVAS_RES_DEVICE : UVAS_RES_HOST);
        }
        if (ok)
            return;
        heat(want, n); /* keep them hot while the ticks come */
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    char map[9];
    for (int b = 0; b < 8; b++)
        map[b] = "?HD"[tu_residence(p + (size_t)b * bs)];
    map[8] = '\0';
    FAIL("%s: residency %s after 2 s of ticks", what, map);
}

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_setenv("UVAS_DEVICE_SIZE", "256K"); /* 4 blocks */
    tu_setenv("UVAS_POLICY", "hot-cold:fraction=0.75,tick_ms=10");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    CHECK(!strcmp(d.policy, "hot-cold:fraction=0.75,tick_ms=10"), "policy %s", d.policy);
    bs = d.block_size;
    p = uvas_malloc(8 * bs);
    CHECK(p != NULL, "uvas_malloc");
    /* Where first touch placed them is read from the counters, not the
     * residence: a tick may already have promoted the touched blocks (the
     * touches are accesses too) by the time this thread looks (it failed
     * so on a loaded CI machine). */
    struct uvas_stats s0 = tu_stats();
    for (int b = 0; b < 8; b++)
        p[(size_t)b * bs] = (unsigned char)b;
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.tier[UVAS_RES_HOST].blocks_populated - s0.tier[UVAS_RES_HOST].blocks_populated,
             8, "blocks first touch placed on the host");
    CHECK_EQ(s1.tier[UVAS_RES_DEVICE].blocks_populated -
                 s0.tier[UVAS_RES_DEVICE].blocks_populated, 0,
             "blocks first touch placed on the device");

    const int first[] = {1, 3, 5};
    heat(first, 3);
    wait_for(first, 3, "blocks 1, 3, 5 hot");
    const int second[] = {0, 2, 6};
    heat(second, 3);
    wait_for(second, 3, "blocks 0, 2, 6 hot");
    for (int b = 0; b < 8; b++)
        CHECK(p[(size_t)b * bs] == (unsigned char)b, "block %d data after the moves", b);

    /* The two sets turn hot in turn, tick after tick. */
    uint64_t before = tu_stats().migrations[UVAS_RES_DEVICE];
    double t0 = tu_now_s();
    for (int r = 0; tu_now_s() - t0 < 0.6; r++) {
        heat(r % 2 ? first : second, 3);
        nanosleep(&(struct timespec){0, 12000000}, NULL);
    }
    uint64_t moved = tu_stats().migrations[UVAS_RES_DEVICE] - before;
    CHECK(moved <= 12, "%llu moves to the device in 600 ms of two sets hot in turn (the guard: "
          "each of the 6 blocks moves at most 4 times within 1000 ms)", (unsigned long long)moved);
    CHECK_OK(uvas_finalize());
    return 0;
}
