/*
 * Access sampling: CPU loads from mapped host blocks take no fault of their
 * own, yet hot-cold with sample=access (the default) sees them and
 * promotes the blocks the CPU keeps reading. Without the sampling those
 * blocks would have no heat at all.
 */
#include <time.h>

#include "check.h"

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
    size_t bs = d.block_size;
    unsigned char *p = uvas_malloc(8 * bs);
    CHECK(p != NULL, "uvas_malloc");
    for (int b = 0; b < 8; b++)
        p[(size_t)b * bs] = 1; /* all on the host */
    nanosleep(&(struct timespec){0, 50000000}, NULL); /* let first-touch heat cool */
    int ok = 0;
    /* Bounded by time, not by rounds: a promotion needs a tick between a
     * round and the check, and ticks come late on a loaded machine (TSan). */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (ok || now.tv_sec - t0.tv_sec >= 20)
            break;
        unsigned sum = 0;
        for (int r = 0; r < 64; r++) /* loads only, from blocks 2 and 5 */
            sum += ((volatile unsigned char *)p)[2 * bs + (size_t)r * 64] +
                   ((volatile unsigned char *)p)[5 * bs + (size_t)r * 64];
        CHECK(sum == 2, "blocks 2 and 5 read back their first bytes only (sum %u)", sum);
        nanosleep(&(struct timespec){0, 5000000}, NULL); /* under a tick: heat stays */
        ok = tu_residence(p + 2 * bs) == UVAS_RES_DEVICE &&
             tu_residence(p + 5 * bs) == UVAS_RES_DEVICE;
    }
    CHECK(ok, "blocks 2 and 5, read by the CPU only, were not promoted (residences %s, %s)",
          uvas_residence_name(tu_residence(p + 2 * bs)),
          uvas_residence_name(tu_residence(p + 5 * bs)));
    CHECK(p[2 * bs] == 1 && p[5 * bs] == 1 && p[2 * bs + 64] == 0, "blocks 2 and 5 data");
    CHECK_OK(uvas_finalize());
    return 0;
}
