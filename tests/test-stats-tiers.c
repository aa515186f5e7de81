/*
 * Tier statistics (uffd mode): after touching k fresh distinct blocks of a
 * unified allocation, tier[HOST].blocks_populated grew by exactly k,
 * tier[HOST].blocks by k, bytes_current by k*block_size, faults by at least
 * k, fault_ns_total > 0, bytes_high >= bytes_current; touching the same
 * blocks again changes none of the tier counters; the device tier stays
 * empty; uvas_stats_reset_watermarks sets bytes_high to bytes_current.
 */
#include "check.h"

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;

    struct uvas_stats s0 = tu_stats();
    CHECK_EQ(s0.tier[UVAS_RES_HOST].blocks, 0, "host blocks at start");
    CHECK_EQ(s0.tier[UVAS_RES_HOST].bytes_current, 0, "host bytes at start");

    const size_t nb = 12, k = 5;
    unsigned char *p = uvas_malloc(nb * bs);
    CHECK(p != NULL, "uvas_malloc");
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.tier[UVAS_RES_HOST].blocks, s0.tier[UVAS_RES_HOST].blocks,
             "host blocks after malloc (no touch)");
    CHECK_EQ(s1.faults, s0.faults, "faults after malloc (no touch)");

    /* Touch blocks 0, 2, 4, 6 (writes) and 9 (read), two bytes each. */
    const size_t touched[5] = {0, 2, 4, 6, 9};
    for (size_t i = 0; i < k; i++) {
        unsigned char *b = p + touched[i] * bs;
        if (i == k - 1) {
            CHECK(tu_read_byte(b + 1) == 0, "not zero");
        } else {
            tu_write_byte(b + 1, 1);
        }
        tu_write_byte(b + bs - 1, 2);
    }
    struct uvas_stats s2 = tu_stats();
    const struct uvas_tier_stats *a = &s1.tier[UVAS_RES_HOST],
                                 *b = &s2.tier[UVAS_RES_HOST];
    CHECK(b->blocks_populated - a->blocks_populated == k,
          "blocks_populated grew by %llu, expected %zu",
          (unsigned long long)(b->blocks_populated - a->blocks_populated), k);
    CHECK_EQ(b->blocks - a->blocks, k, "host blocks growth");
    CHECK_EQ(b->bytes_current - a->bytes_current, k * bs, "host bytes growth");
    CHECK(b->bytes_high >= b->bytes_current, "bytes_high %zu < current %zu",
          b->bytes_high, b->bytes_current);
    CHECK(s2.faults - s1.faults >= k, "faults grew by %llu, expected >= %zu",
          (unsigned long long)(s2.faults - s1.faults), k);
    CHECK(s2.fault_ns_total > 0, "fault_ns_total is 0 after %llu faults",
          (unsigned long long)s2.faults);
    CHECK(s2.fault_ns_max > 0 && s2.fault_ns_max <= s2.fault_ns_total,
          "fault_ns_max %llu, total %llu", (unsigned long long)s2.fault_ns_max,
          (unsigned long long)s2.fault_ns_total);
    CHECK_EQ(s2.tier[UVAS_RES_DEVICE].blocks, 0, "device blocks");
    CHECK_EQ(s2.tier[UVAS_RES_DEVICE].bytes_current, 0, "device bytes");
    CHECK_EQ(s2.tier[UVAS_RES_DEVICE].blocks_populated, 0,
             "device blocks_populated");
    CHECK_EQ(s2.faults_stray, s0.faults_stray, "stray faults");

    /* Touching the same blocks again: no new placement. */
    for (size_t i = 0; i < k; i++)
        memset(p + touched[i] * bs, 3, bs);
    struct uvas_stats s3 = tu_stats();
    CHECK_EQ(s3.tier[UVAS_RES_HOST].blocks_populated,
             s2.tier[UVAS_RES_HOST].blocks_populated,
             "blocks_populated after re-touching");
    CHECK_EQ(s3.tier[UVAS_RES_HOST].bytes_current,
             s2.tier[UVAS_RES_HOST].bytes_current,
             "bytes_current after re-touching");

    /* Two more blocks in a second allocation: +2. */
    unsigned char *q = uvas_malloc(3 * bs);
    CHECK(q != NULL, "uvas_malloc");
    q[0] = 1;
    q[2 * bs + 5] = 1;
    struct uvas_stats s4 = tu_stats();
    CHECK_EQ(s4.tier[UVAS_RES_HOST].blocks_populated -
                 s3.tier[UVAS_RES_HOST].blocks_populated,
             2, "blocks_populated growth for 2 more blocks");
    CHECK_EQ(s4.tier[UVAS_RES_HOST].bytes_current -
                 s3.tier[UVAS_RES_HOST].bytes_current,
             2 * bs, "bytes growth for 2 more blocks");

    /* Freeing lowers bytes_current; bytes_high keeps the peak until reset. */
    size_t peak = s4.tier[UVAS_RES_HOST].bytes_current;
    CHECK_OK(uvas_try_free(p));
    struct uvas_stats s5 = tu_stats();
    CHECK_EQ(s5.tier[UVAS_RES_HOST].bytes_current, peak - k * bs,
             "host bytes after freeing the first allocation");
    CHECK(s5.tier[UVAS_RES_HOST].bytes_high >= peak,
          "bytes_high %zu dropped below the peak %zu",
          s5.tier[UVAS_RES_HOST].bytes_high, peak);
    CHECK_OK(uvas_stats_reset_watermarks());
    struct uvas_stats s6 = tu_stats();
    CHECK_EQ(s6.tier[UVAS_RES_HOST].bytes_high,
             s6.tier[UVAS_RES_HOST].bytes_current,
             "bytes_high after uvas_stats_reset_watermarks");
    CHECK_OK(uvas_try_free(q));
    CHECK_OK(uvas_finalize());
    return 0;
}
