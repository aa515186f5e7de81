/*
 * Range arguments are checked against the allocation, not the range, and
 * a block freed keeps nothing of its last owner:
 *  - uvas_migrate, uvas_advise and uvas_device_access with a length past
 *    the end of the allocation fail with UVAS_ERR_INVAL naming it and
 *    change nothing (no block committed, the neighbour untouched); before,
 *    64 GiB from a 5 MiB allocation committed free blocks until the OOM
 *    killer came, and a device write ran over the next allocation;
 *  - uvas_calloc zeroes memory a stray store dirtied after a free (a use
 *    after free populates the free block);
 *  - advice (read-mostly, preferred location) and counts are gone after a
 *    free: a new allocation at the same place is not duplicated or placed
 *    by the old owner's advice.
 */
#include "check.h"
#include "uvas_policy.h"

static size_t tier_blocks(int res)
{
    struct uvas_stats s = tu_stats();
    return s.tier[res].blocks;
}

int main(void)
{
    tu_deadline(60);
    struct uvas_range_desc d = tu_init_range("64G", "2M");
    size_t bs = d.block_size;

    /* Lengths past the allocation. */
    char *a = uvas_malloc((size_t)5 << 20), *nb = uvas_malloc(4096), *small = uvas_malloc(4096);
    CHECK(a && nb && small, "uvas_malloc");
    memset(small, 0x11, 4096);
    memset(nb, 0x22, 4096);
    size_t host0 = tier_blocks(UVAS_RES_HOST), dev0 = tier_blocks(UVAS_RES_DEVICE);
    CHECK_STATUS(uvas_migrate(a, (size_t)64 << 30, UVAS_LOC_HOST, 0), UVAS_ERR_INVAL);
    CHECK(strstr(uvas_last_error(), "past the end of its allocation") != NULL,
          "message names the allocation: %s", uvas_last_error());
    CHECK_STATUS(uvas_migrate(small, (size_t)1 << 30, UVAS_LOC_HOST, 0), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_migrate(a + 4096, (size_t)5 << 20, UVAS_LOC_DEVICE, 0), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_advise(small, (size_t)8 << 30, UVAS_ADVISE_READ_MOSTLY, 0),
                 UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_advise(a, ((size_t)5 << 20) + 1, UVAS_ADVISE_PREFERRED_LOCATION,
                             UVAS_LOC_HOST), UVAS_ERR_INVAL);
    if (d.device_present)
        CHECK_STATUS(uvas_device_access(small, (size_t)6 << 20, 1, 0xAA), UVAS_ERR_INVAL);
    CHECK_EQ(tier_blocks(UVAS_RES_HOST), host0, "host blocks after refused calls");
    CHECK_EQ(tier_blocks(UVAS_RES_DEVICE), dev0, "device blocks after refused calls");
    CHECK(tu_find_not(nb, 4096, 0x22) < 0, "the neighbouring allocation changed");
    CHECK(tu_find_not(small, 4096, 0x11) < 0, "the allocation itself changed");
    /* Exactly the allocation is fine. */
    CHECK_OK(uvas_migrate(a, (size_t)5 << 20, UVAS_LOC_HOST, 0));
    CHECK_OK(uvas_advise(small, 4096, UVAS_ADVISE_PREFERRED_LOCATION, UVAS_LOC_HOST));
    uvas_free(a);
    uvas_free(nb);
    uvas_free(small);

    /* calloc over memory a stray store dirtied after the free. */
    size_t len = (size_t)4 << 20;
    char *c = uvas_malloc(len);
    CHECK(c != NULL, "uvas_malloc(4 MiB)");
    memset(c, 0x5a, len);
    uvas_free(c);
    ((volatile char *)c)[12345] = 0x77;       /* a use after free */
    ((volatile char *)c)[len - bs + 7] = 0x78; /* and in another block */
    char *z = uvas_calloc(1, len);
    CHECK(z == c, "uvas_calloc did not reuse the freed place (%p, freed %p)", (void *)z,
          (void *)c);
    long bad = tu_find_not(z, len, 0);
    CHECK(bad < 0, "uvas_calloc returned byte %ld = %#x", bad, bad < 0 ? 0 : z[bad]);
    uvas_free(z);

    /* Advice does not survive a free. */
    char *r = uvas_malloc(len);
    CHECK(r != NULL, "uvas_malloc");
    memset(r, 1, len);
    if (d.device_present) {
        CHECK_OK(uvas_advise(r, len, UVAS_ADVISE_READ_MOSTLY, 0));
        CHECK_OK(uvas_advise(r, len, UVAS_ADVISE_PREFERRED_LOCATION, UVAS_LOC_DEVICE));
    } else {
        CHECK_OK(uvas_advise(r, len, UVAS_ADVISE_PREFERRED_LOCATION, UVAS_LOC_HOST));
    }
    uvas_free(r);
    char *r2 = uvas_malloc(len);
    CHECK(r2 == r, "the new allocation is elsewhere (%p, freed %p)", (void *)r2, (void *)r);
    memset(r2, 2, len); /* first touch: the default policy, not the old advice */
    tu_expect_blocks(r2, len, UVAS_RES_HOST, "first touch after the free");
    if (d.device_present) {
        CHECK_OK(uvas_migrate(r2, len, UVAS_LOC_DEVICE, 0));
        struct uvas_ptr_info info;
        CHECK_OK(uvas_query(r2, &info));
        CHECK(!info.duplicated, "the new allocation is duplicated: read-mostly advice "
              "survived the free");
    }
    uvas_free(r2);
    CHECK_OK(uvas_finalize());
    printf("ok\n");
    return 0;
}
