/*
 * A block freed and taken again starts from nothing at the policies'
 * tick. Under peers (a 1 ms tick), a block whose allocation the device
 * used (five writes) is freed while the tick runs, taken again by a new
 * allocation the CPU first touches, and must stay on the host: nobody on
 * the device side has used the new allocation. Before the view carried
 * the block's generation, the policy kept the old allocation's device
 * score and moved the new one to the device at its next tick. Rounds of
 * free and reuse race the tick's views (the ThreadSanitizer pass runs
 * this). A tick that does not come in time leaves nothing to check: the
 * test cannot fail for a slow machine, only for a move.
 */
#include <time.h>

#include "check.h"
#include "uvas_policy.h"

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device_policy("64M", "64K", "peers:tick_ms=1,sample=none");
    size_t bs = d.block_size;
    int reused = 0;
    for (int round = 0; round < 100; round++) {
        unsigned char *p = uvas_malloc(bs);
        CHECK(p != NULL, "uvas_malloc");
        for (int i = 0; i < 5; i++)
            CHECK_OK(uvas_device_access(p, 64, 1, (unsigned char)i));
        CHECK(tu_residence(p) == UVAS_RES_DEVICE, "a block the device touched first is at %d",
              tu_residence(p));
        struct timespec ts = {0, 3 * 1000 * 1000}; /* ticks see its device score */
        nanosleep(&ts, NULL);
        uvas_free(p);
        unsigned char *q = uvas_malloc(bs);
        CHECK(q != NULL, "uvas_malloc");
        reused += q == p;
        q[0] = 1; /* the CPU's first touch: host */
        CHECK(tu_residence(q) == UVAS_RES_HOST, "a block the CPU touched first is at %d",
              tu_residence(q));
        nanosleep(&ts, NULL);
        CHECK(tu_residence(q) == UVAS_RES_HOST, "round %d: a new allocation nobody on the "
              "device used moved to %d (its block's earlier allocation's score)", round,
              tu_residence(q));
        CHECK(q[0] == 1, "the new allocation's byte: %d", q[0]);
        uvas_free(q);
    }
    CHECK(reused > 0, "no round took the freed block again: nothing tested");
    printf("policy-reuse: %d of 100 rounds took the freed block again; none moved\n", reused);
    CHECK_OK(uvas_finalize());
    return 0;
}
