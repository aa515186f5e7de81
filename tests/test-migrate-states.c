/*
 * Queries through every residence a block goes through (device tier
 * needed), checked with uvas_query (residence, block_base, alloc_base,
 * alloc_size), uvas_residency_map and uvas_residency_print:
 *   fresh -> UNPOPULATED; touched -> HOST; migrated -> DEVICE (a host
 *   block moved, an untouched one populated there: only the moved one
 *   counts in migrations[DEVICE]); touched by the CPU -> HOST again with
 *   its data (the untouched one reads zero); freed while DEVICE ->
 *   NOT_OWNED, stats.tier[DEVICE].blocks back where it was; allocated
 *   again with the same size -> the same address, UNPOPULATED, zeros.
 * Also a UVAS_HINT_DEVICE allocation (DEVICE from the start) freed
 * untouched gives its device blocks back, and its re-allocation reads 0.
 */

#include "check.h"

static size_t bs;

static void expect_blocks(const unsigned char *a, const char *want, const char *when)
{
    size_t n = strlen(want);
    uint8_t map[16];
    size_t nb = 0;
    CHECK_OK(uvas_residency_map(a, n * bs, map, 16, &nb));
    CHECK_EQ(nb, n, "uvas_residency_map block count");
    for (size_t i = 0; i < n; i++) {
        int res = want[i] == '.' ? UVAS_RES_UNPOPULATED
                  : want[i] == 'H' ? UVAS_RES_HOST
                                   : UVAS_RES_DEVICE;
        struct uvas_ptr_info info;
        const unsigned char *p = a + i * bs + (i * 4099) % bs;
        CHECK_OK(uvas_query(p, &info));
        if (want[i] == '?') /* host or device: not specified */
            res = info.residence == UVAS_RES_UNPOPULATED ? UVAS_RES_HOST : info.residence;
        CHECK(info.residence == res && map[i] == res,
              "%s: block %zu is %s by uvas_query, %s by uvas_residency_map; expected %s", when,
              i, uvas_residence_name(info.residence), uvas_residence_name(map[i]),
              uvas_residence_name(res));
        CHECK(info.block_base == a + i * bs, "%s: block_base %p, expected %p", when,
              info.block_base, (const void *)(a + i * bs));
        CHECK(info.alloc_base == a, "%s: alloc_base %p, expected %p", when, info.alloc_base,
              (const void *)a);
    }
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    CHECK(f != NULL, "open_memstream");
    CHECK_OK(uvas_residency_print(f, a, n * bs));
    fclose(f);
    char glyphs[17];
    for (size_t i = 0; i < n; i++)
        glyphs[i] = ".HD"[map[i]];
    glyphs[n] = '\0';
    CHECK(strstr(text, glyphs) != NULL, "%s: uvas_residency_print wrote '%s', expected the "
          "map '%s'", when, text, glyphs);
    free(text);
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    bs = d.block_size;
    CHECK(!strcmp(uvas_residence_name(UVAS_RES_DEVICE), "device"),
          "uvas_residence_name(UVAS_RES_DEVICE) is '%s'", uvas_residence_name(UVAS_RES_DEVICE));

    size_t len = 4 * bs;
    unsigned char *a = uvas_aligned_alloc(bs, len, 0);
    CHECK(a != NULL, "uvas_aligned_alloc");
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(a + len - 1, &info));
    CHECK_EQ(info.alloc_size, len, "alloc_size");
    CHECK_EQ(info.block_size, bs, "block_size");
    struct uvas_stats s0 = tu_stats();
    expect_blocks(a, "....", "fresh");

    memset(a, 0x21, bs); /* block 0 */
    expect_blocks(a, "H...", "block 0 touched");

    struct uvas_stats s1 = tu_stats();
    CHECK_OK(uvas_migrate(a, 2 * bs, UVAS_LOC_DEVICE, 0));
    expect_blocks(a, "DD..", "blocks 0 (host) and 1 (untouched) migrated");
    struct uvas_stats s2 = tu_stats();
    CHECK_EQ(s2.migrations[UVAS_RES_DEVICE] - s1.migrations[UVAS_RES_DEVICE], 1,
             "migrations[DEVICE]: one host block moved, one untouched block populated");
    CHECK_EQ(s2.bytes_migrated[UVAS_RES_DEVICE] - s1.bytes_migrated[UVAS_RES_DEVICE], bs,
             "bytes_migrated[DEVICE]");
    CHECK_EQ(s2.tier[UVAS_RES_DEVICE].blocks - s1.tier[UVAS_RES_DEVICE].blocks, 2,
             "tier[DEVICE].blocks");
    CHECK_EQ(s1.tier[UVAS_RES_HOST].blocks - s2.tier[UVAS_RES_HOST].blocks, 1,
             "tier[HOST].blocks drop");

    CHECK_EQ(tu_read_byte(a + bs + 12345), 0, "the block populated on the device reads");
    expect_blocks(a, "?H..", "block 1 read by the CPU");
    CHECK(tu_find_not(a, bs, 0x21) < 0, "block 0's data after the device");
    expect_blocks(a, "HH..", "block 0 read by the CPU");
    CHECK(tu_find_not(a + bs, bs, 0) < 0, "block 1 not zero");
    struct uvas_stats s3 = tu_stats();
    CHECK(s3.faults_device > s2.faults_device, "faults_device did not grow for CPU accesses "
          "to device blocks");
    CHECK_EQ(s3.migrations[UVAS_RES_HOST] - s2.migrations[UVAS_RES_HOST], 2,
             "migrations[HOST]: the two device blocks the CPU touched came back");

    /* All four to the device (two host, two untouched), then free. */
    CHECK_OK(uvas_migrate(a + 1, len - 2, UVAS_LOC_DEVICE, 0));
    expect_blocks(a, "DDDD", "all migrated");
    struct uvas_stats s4 = tu_stats();
    CHECK_EQ(s4.tier[UVAS_RES_DEVICE].blocks, s0.tier[UVAS_RES_DEVICE].blocks + 4,
             "tier[DEVICE].blocks with the four on the device");
    CHECK_OK(uvas_try_free(a));
    CHECK_STATUS(uvas_query(a, &info), UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query(a + len - 1, &info), UVAS_ERR_NOT_OWNED);
    struct uvas_stats s5 = tu_stats();
    CHECK_EQ(s5.tier[UVAS_RES_DEVICE].blocks, s0.tier[UVAS_RES_DEVICE].blocks,
             "tier[DEVICE].blocks after freeing device-resident memory");
    CHECK_EQ(s5.tier[UVAS_RES_HOST].blocks, s0.tier[UVAS_RES_HOST].blocks,
             "tier[HOST].blocks after the free");

    unsigned char *b = uvas_aligned_alloc(bs, len, 0);
    CHECK(b == a, "re-allocation of the same size: %p, expected the freed %p", (void *)b,
          (void *)a);
    expect_blocks(b, "....", "re-allocated after a free while on the device");
    long nz = tu_find_not(b, len, 0);
    CHECK(nz < 0, "re-allocated memory (was on the device) not zero at byte %ld: 0x%02x", nz,
          nz < 0 ? 0 : b[nz]);
    expect_blocks(b, "HHHH", "re-allocated memory read");

    /* Host-resident, freed, re-allocated: unpopulated again too. */
    memset(b, 0x7e, len);
    CHECK_OK(uvas_try_free(b));
    unsigned char *c = uvas_aligned_alloc(bs, len, 0);
    CHECK(c == a, "second re-allocation: %p, expected %p", (void *)c, (void *)a);
    expect_blocks(c, "....", "re-allocated after a free while on the host");
    CHECK(tu_find_not(c, len, 0) < 0, "re-allocated memory (was on the host) not zero");
    CHECK_OK(uvas_try_free(c));

    /* A device-hinted allocation freed untouched, on the device. */
    struct uvas_stats s6 = tu_stats();
    unsigned char *h = uvas_aligned_alloc(bs, len, UVAS_HINT_DEVICE);
    CHECK(h != NULL, "device-hinted allocation");
    expect_blocks(h, "DDDD", "UVAS_HINT_DEVICE allocation");
    CHECK_EQ(tu_stats().tier[UVAS_RES_DEVICE].blocks, s6.tier[UVAS_RES_DEVICE].blocks + 4,
             "tier[DEVICE].blocks with a device-hinted allocation");
    CHECK_OK(uvas_try_free(h));
    CHECK_EQ(tu_stats().tier[UVAS_RES_DEVICE].blocks, s6.tier[UVAS_RES_DEVICE].blocks,
             "tier[DEVICE].blocks after freeing the device-hinted allocation");
    unsigned char *h2 = uvas_aligned_alloc(bs, len, UVAS_HINT_DEVICE);
    CHECK(h2 != NULL, "device-hinted re-allocation");
    CHECK(tu_find_not(h2, len, 0) < 0, "device-hinted re-allocation not zero");
    CHECK_OK(uvas_try_free(h2));
    CHECK_OK(uvas_finalize());
    printf("migrate-states: OK\n");
    return 0;
}
