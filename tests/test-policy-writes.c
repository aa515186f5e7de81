/*
 * Write tracking: CPU stores to mapped host blocks take no fault of their
 * own, yet hot-cold (which asks for write tracking) sees them and promotes
 * the blocks the CPU keeps writing. Without the tracking those blocks would
 * have no heat at all.
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
    tu_setenv("UVAS_POLICY", "hot-cold:fraction=0.75,tick_ms=10,sample=writes");
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
        for (int r = 0; r < 64; r++) { /* stores only, to blocks 2 and 5 */
            p[2 * bs + (size_t)r * 64] = (unsigned char)r;
            p[5 * bs + (size_t)r * 64] = (unsigned char)r;
        }
        nanosleep(&(struct timespec){0, 5000000}, NULL); /* under a tick: heat stays */
        ok = tu_residence(p + 2 * bs) == UVAS_RES_DEVICE &&
             tu_residence(p + 5 * bs) == UVAS_RES_DEVICE;
    }
    CHECK(ok, "blocks 2 and 5, written by the CPU only, were not promoted (residences %s, %s)",
          uvas_residence_name(tu_residence(p + 2 * bs)),
          uvas_residence_name(tu_residence(p + 5 * bs)));
    for (int r = 0; r < 64; r++)
        CHECK(p[2 * bs + (size_t)r * 64] == (unsigned char)r, "block 2 data");
    CHECK_OK(uvas_finalize());
    return 0;
}
