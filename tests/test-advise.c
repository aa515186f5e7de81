/*
 * uvas_advise (device tier needed for the placement part):
 *  - UVAS_ADVISE_PREFERRED_LOCATION with UVAS_LOC_DEVICE over an unaligned
 *    range of untouched blocks: their first touch places them on the
 *    device (stats.tier[DEVICE].blocks_populated grows); the touch is a
 *    CPU one, so the data comes back to the CPU: reads give zeros, writes
 *    land and read back;
 *  - blocks outside the advised range, and blocks whose advice was lifted
 *    with UVAS_ADVISE_UNSET_PREFERRED_LOCATION, get the default placement:
 *    the host (tier[DEVICE].blocks_populated does not grow,
 *    tier[HOST].blocks_populated does);
 *  - an unknown advice value (0, 7, 99, -1) is UVAS_ERR_INVAL, and so is
 *    a bad location with PREFERRED_LOCATION; neither changes placement.
 */
#include "check.h"

static size_t bs;

static uint64_t dev_populated(void)
{
    return tu_stats().tier[UVAS_RES_DEVICE].blocks_populated;
}

static uint64_t host_populated(void)
{
    return tu_stats().tier[UVAS_RES_HOST].blocks_populated;
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_range("256M", "64K");
    bs = d.block_size;

    /* Bad advice: checked with or without a device. */
    unsigned char *e = uvas_aligned_alloc(bs, 2 * bs, 0);
    CHECK(e != NULL, "uvas_aligned_alloc");
    const int bad_advice[] = {0, 7, 99, -1};
    for (size_t i = 0; i < sizeof bad_advice / sizeof bad_advice[0]; i++) {
        CHECK_STATUS(uvas_advise(e, 2 * bs, bad_advice[i], UVAS_LOC_DEVICE), UVAS_ERR_INVAL);
        CHECK(*uvas_last_error(), "uvas_advise with advice %d: no uvas_last_error message",
              bad_advice[i]);
        CHECK_STATUS(uvas_advise(e, 2 * bs, bad_advice[i], UVAS_LOC_HOST), UVAS_ERR_INVAL);
    }
    const int bad_loc[] = {0, 3, 7, -1};
    for (size_t i = 0; i < sizeof bad_loc / sizeof bad_loc[0]; i++)
        CHECK_STATUS(uvas_advise(e, 2 * bs, UVAS_ADVISE_PREFERRED_LOCATION, bad_loc[i]),
                     UVAS_ERR_INVAL);
    uint64_t h0 = host_populated();
    memset(e, 0x5e, 2 * bs);
    CHECK_EQ(tu_residence(e), UVAS_RES_HOST, "after rejected advice, touched");
    CHECK_EQ(host_populated() - h0, 2, "tier[HOST].blocks_populated after rejected advice");
    CHECK_OK(uvas_try_free(e));

    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);

    /* Advice for blocks 1..4 of 8, through an unaligned range. */
    size_t len = 8 * bs;
    unsigned char *a = uvas_aligned_alloc(bs, len, 0);
    CHECK(a != NULL, "uvas_aligned_alloc");
    CHECK_OK(uvas_advise(a + bs + 10, 4 * bs - 20, UVAS_ADVISE_PREFERRED_LOCATION,
                         UVAS_LOC_DEVICE));
    for (size_t b = 0; b < 8; b++)
        CHECK_EQ(tu_residence(a + b * bs), UVAS_RES_UNPOPULATED, "advice populates nothing");

    uint64_t d0 = dev_populated();
    CHECK_EQ(tu_read_byte(a + bs + 999), 0, "first touch (a read) of an advised block");
    uint64_t d1 = dev_populated();
    CHECK(d1 > d0, "tier[DEVICE].blocks_populated did not grow when an untouched block "
          "advised to the device was first touched (%llu)", (unsigned long long)d1);
    CHECK(tu_find_not(a + bs, bs, 0) < 0, "advised block 1 not zero");
    for (size_t b = 2; b <= 4; b++) { /* first touches that are writes */
        memset(a + b * bs + 17, (int)(0x30 + b), bs - 17);
        CHECK(tu_find_not(a + b * bs, 17, 0) < 0, "advised block %zu: bytes before the write",
              b);
        CHECK(tu_find_not(a + b * bs + 17, bs - 17, (unsigned char)(0x30 + b)) < 0,
              "advised block %zu: written data", b);
    }
    uint64_t d2 = dev_populated();
    CHECK(d2 > d1, "tier[DEVICE].blocks_populated did not grow for written advised blocks");
    printf("advise: %llu blocks placed on the device by first touch under the advice\n",
           (unsigned long long)(d2 - d0));

    /* Outside the advice: default placement, the host. */
    uint64_t hp = host_populated();
    memset(a, 0x11, bs);                 /* block 0 */
    memset(a + 5 * bs, 0x22, 3 * bs);    /* blocks 5..7 */
    CHECK_EQ(dev_populated(), d2, "tier[DEVICE].blocks_populated for blocks without advice");
    /* A first touch lets the touching thread go once its pages are in and
     * counts the block after: under load the count may trail the data. */
    for (double end = tu_now_s() + 10; host_populated() - hp < 4 && tu_now_s() < end;)
        usleep(1000);
    CHECK_EQ(host_populated() - hp, 4, "tier[HOST].blocks_populated for blocks without advice");
    for (size_t b = 0; b < 8; b++)
        CHECK_EQ(tu_residence(a + b * bs), UVAS_RES_HOST, "every block after CPU touches");
    CHECK(tu_find_not(a, bs, 0x11) < 0 && tu_find_not(a + 5 * bs, 3 * bs, 0x22) < 0,
          "data of the unadvised blocks");
    CHECK(tu_find_not(a + bs, bs, 0) < 0, "advised block 1 after the rest");
    for (size_t b = 2; b <= 4; b++)
        CHECK(tu_find_not(a + b * bs + 17, bs - 17, (unsigned char)(0x30 + b)) < 0,
              "advised block %zu after the rest", b);

    /* Advice then UNSET: default placement again. */
    unsigned char *u = uvas_aligned_alloc(bs, 4 * bs, 0);
    CHECK(u != NULL, "uvas_aligned_alloc");
    CHECK_OK(uvas_advise(u, 4 * bs, UVAS_ADVISE_PREFERRED_LOCATION, UVAS_LOC_DEVICE));
    CHECK_OK(uvas_advise(u + 1, 4 * bs - 1, UVAS_ADVISE_UNSET_PREFERRED_LOCATION, 0));
    uint64_t d3 = dev_populated();
    hp = host_populated();
    memset(u, 0x66, 4 * bs);
    CHECK_EQ(dev_populated(), d3, "tier[DEVICE].blocks_populated after the advice was unset");
    CHECK_EQ(host_populated() - hp, 4, "tier[HOST].blocks_populated after the advice was unset");
    CHECK(tu_find_not(u, 4 * bs, 0x66) < 0, "data after unset advice");

    /* PREFERRED_LOCATION host: as the default for unhinted memory. */
    unsigned char *v = uvas_aligned_alloc(bs, 2 * bs, 0);
    CHECK(v != NULL, "uvas_aligned_alloc");
    CHECK_OK(uvas_advise(v, 2 * bs, UVAS_ADVISE_PREFERRED_LOCATION, UVAS_LOC_HOST));
    d3 = dev_populated();
    memset(v, 0x77, 2 * bs);
    CHECK_EQ(dev_populated(), d3, "tier[DEVICE].blocks_populated with host advice");
    CHECK(tu_find_not(v, 2 * bs, 0x77) < 0, "data with host advice");

    CHECK_OK(uvas_try_free(v));
    CHECK_OK(uvas_try_free(u));
    CHECK_OK(uvas_try_free(a));
    CHECK_OK(uvas_finalize());
    return 0;
}
