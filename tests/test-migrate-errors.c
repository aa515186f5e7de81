/*
 * Bad input to uvas_migrate, and the device tier's configuration errors:
 *  - a pointer in no live allocation (libc memory, the stack, NULL, a
 *    freed uvas allocation, an unallocated address inside the range) is
 *    UVAS_ERR_NOT_OWNED, also with UVAS_MIGRATE_ASYNC; len 0, a location
 *    that is neither UVAS_LOC_HOST nor UVAS_LOC_DEVICE (0, 3, 7, -1) and
 *    unknown flag bits are UVAS_ERR_INVAL; each failure sets
 *    uvas_last_error and moves nothing; a later success clears it;
 *  - UVAS_DEVICE=none: device_present 0, device_kind "none"; migrating
 *    to the device is UVAS_ERR_NO_DEVICE (sync and async), to the host 0;
 *    a UVAS_HINT_DEVICE allocation succeeds and lands on the host when
 *    touched;
 *  - UVAS_DEVICE=none with UVAS_DEVICE_STRICT=1: uvas_malloc_hint with
 *    UVAS_HINT_DEVICE returns NULL with errno ENODEV and a message;
 *    unhinted and host-hinted allocations still work;
 *  - UVAS_DEVICE=garbage, UVAS_DEVICE_STRICT=2, UVAS_DEVICE_SIZE=abc or
 *    under one block (1, 4K):
 *    uvas_init returns UVAS_ERR_ENV and the message names the variable;
 *    UVAS_DEVICE=7 (no such Vulkan device) fails with UVAS_ERR_NO_DEVICE;
 *    a correct init works after all of these.
 */
#include "check.h"

static size_t bs;

static void expect_fail(int rc, int want, const char *what)
{
    CHECK(rc == want, "%s: returned %d (%s), expected %d (%s)", what, rc, uvas_strerror(rc),
          want, uvas_strerror(want));
    const char *le = uvas_last_error();
    CHECK(le != NULL && *le, "%s: failed with %s but uvas_last_error is empty", what,
          uvas_strerror(rc));
}

static void base_env(void)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
}

static void bad_arguments(void)
{
    base_env();
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    bs = d.block_size;
    unsigned char *p = uvas_malloc(3 * bs);
    CHECK(p != NULL, "uvas_malloc");
    memset(p, 0x5a, 3 * bs);
    unsigned char *freed = uvas_malloc(2 * bs);
    CHECK(freed != NULL, "uvas_malloc");
    memset(freed, 1, 2 * bs);
    CHECK_OK(uvas_try_free(freed));
    char *libc = malloc(4096);
    CHECK(libc != NULL, "malloc");
    char stack[64];
    /* The last block of the range: allocations start low, nothing there. */
    const char *unalloc = (const char *)d.base + d.size - bs;
    struct uvas_ptr_info pi;
    CHECK(uvas_query(unalloc, &pi) == UVAS_ERR_NOT_OWNED, "the range's last block is allocated");

    struct uvas_stats s0 = tu_stats();
    const int locs[2] = {UVAS_LOC_DEVICE, UVAS_LOC_HOST};
    for (int l = 0; l < 2; l++) {
        for (unsigned fl = 0; fl <= UVAS_MIGRATE_ASYNC; fl++) {
            expect_fail(uvas_migrate(libc, 16, locs[l], fl), UVAS_ERR_NOT_OWNED,
                        "uvas_migrate of libc memory");
            expect_fail(uvas_migrate(stack, sizeof stack, locs[l], fl), UVAS_ERR_NOT_OWNED,
                        "uvas_migrate of the stack");
            expect_fail(uvas_migrate(NULL, 16, locs[l], fl), UVAS_ERR_NOT_OWNED,
                        "uvas_migrate(NULL)");
            expect_fail(uvas_migrate(freed, bs, locs[l], fl), UVAS_ERR_NOT_OWNED,
                        "uvas_migrate of a freed allocation");
            expect_fail(uvas_migrate(unalloc, 1, locs[l], fl), UVAS_ERR_NOT_OWNED,
                        "uvas_migrate of an unallocated address in the range");
            expect_fail(uvas_migrate(p, 0, locs[l], fl), UVAS_ERR_INVAL,
                        "uvas_migrate with len 0");
            expect_fail(uvas_migrate(p + bs, 0, locs[l], fl), UVAS_ERR_INVAL,
                        "uvas_migrate with len 0 inside the allocation");
        }
    }
    const int bad_locs[] = {0, 3, 7, -1, 100};
    for (size_t i = 0; i < sizeof bad_locs / sizeof bad_locs[0]; i++) {
        expect_fail(uvas_migrate(p, 3 * bs, bad_locs[i], 0), UVAS_ERR_INVAL,
                    "uvas_migrate to a bad location");
        expect_fail(uvas_migrate(p, 3 * bs, bad_locs[i], UVAS_MIGRATE_ASYNC), UVAS_ERR_INVAL,
                    "asynchronous uvas_migrate to a bad location");
    }
    const unsigned bad_flags[] = {0x2u, 0x4u, 0x80u, 0x80000000u, UVAS_MIGRATE_ASYNC | 0x2u,
                                  ~0u};
    for (size_t i = 0; i < sizeof bad_flags / sizeof bad_flags[0]; i++)
        for (int l = 0; l < 2; l++)
            expect_fail(uvas_migrate(p, 3 * bs, locs[l], bad_flags[i]), UVAS_ERR_INVAL,
                        "uvas_migrate with unknown flag bits");
    /* Nothing moved, nothing queued. */
    CHECK_OK(uvas_migrate_wait());
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.migrations[UVAS_RES_DEVICE], s0.migrations[UVAS_RES_DEVICE],
             "migrations[DEVICE] after failed calls");
    CHECK_EQ(s1.migrations[UVAS_RES_HOST], s0.migrations[UVAS_RES_HOST],
             "migrations[HOST] after failed calls");
    CHECK_EQ(s1.tier[UVAS_RES_DEVICE].blocks, s0.tier[UVAS_RES_DEVICE].blocks,
             "tier[DEVICE].blocks after failed calls");
    for (size_t b = 0; b < 3; b++)
        CHECK_EQ(tu_residence(p + b * bs), UVAS_RES_HOST, "residence after failed calls");
    CHECK(tu_find_not(p, 3 * bs, 0x5a) < 0, "data changed by failed calls");
    struct uvas_ptr_info fi;
    CHECK_STATUS(uvas_query(freed, &fi), UVAS_ERR_NOT_OWNED);

    /* A success clears the message. */
    expect_fail(uvas_migrate(p, 0, UVAS_LOC_HOST, 0), UVAS_ERR_INVAL, "len 0 again");
    CHECK_OK(uvas_migrate(p, 3 * bs, UVAS_LOC_HOST, 0));
    CHECK(*uvas_last_error() == '\0', "uvas_last_error after a successful uvas_migrate: '%s'",
          uvas_last_error());
    free(libc);
    CHECK_OK(uvas_try_free(p));
    CHECK_OK(uvas_finalize());
}

static void device_none(void)
{
    base_env();
    tu_setenv("UVAS_DEVICE", "none");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    CHECK_EQ(d.device_present, 0, "device_present with UVAS_DEVICE=none");
    CHECK(d.device_kind && !strcmp(d.device_kind, "none"),
          "device_kind with UVAS_DEVICE=none: '%s', expected 'none'",
          d.device_kind ? d.device_kind : "(null)");
    unsigned char *p = uvas_malloc(3 * bs);
    CHECK(p != NULL, "uvas_malloc");
    memset(p, 0x33, 3 * bs);
    expect_fail(uvas_migrate(p, 3 * bs, UVAS_LOC_DEVICE, 0), UVAS_ERR_NO_DEVICE,
                "uvas_migrate to the device with UVAS_DEVICE=none");
    expect_fail(uvas_migrate(p + 5, 1, UVAS_LOC_DEVICE, UVAS_MIGRATE_ASYNC), UVAS_ERR_NO_DEVICE,
                "asynchronous uvas_migrate to the device with UVAS_DEVICE=none");
    CHECK_OK(uvas_migrate(p, 3 * bs, UVAS_LOC_HOST, 0));
    CHECK_OK(uvas_migrate(p + 1, bs, UVAS_LOC_HOST, UVAS_MIGRATE_ASYNC));
    CHECK_OK(uvas_migrate_wait());
    for (size_t b = 0; b < 3; b++)
        CHECK_EQ(tu_residence(p + b * bs), UVAS_RES_HOST, "residence with UVAS_DEVICE=none");
    CHECK(tu_find_not(p, 3 * bs, 0x33) < 0, "data with UVAS_DEVICE=none");

    unsigned char *h = uvas_malloc_hint(3 * bs + 10, UVAS_HINT_DEVICE);
    CHECK(h != NULL, "uvas_malloc_hint(UVAS_HINT_DEVICE) with UVAS_DEVICE=none failed: %s",
          uvas_last_error());
    CHECK(tu_find_not(h, 3 * bs + 10, 0) < 0, "fresh UVAS_HINT_DEVICE memory not zero");
    memset(h, 0x44, 3 * bs + 10);
    for (size_t off = 0; off < 3 * bs + 10; off += bs)
        CHECK_EQ(tu_residence(h + off), UVAS_RES_HOST,
                 "UVAS_HINT_DEVICE memory after a touch with UVAS_DEVICE=none");
    CHECK(tu_find_not(h, 3 * bs + 10, 0x44) < 0, "UVAS_HINT_DEVICE data, UVAS_DEVICE=none");
    CHECK_OK(uvas_migrate(h, 3 * bs + 10, UVAS_LOC_HOST, 0));
    struct uvas_stats s = tu_stats();
    CHECK_EQ(s.tier[UVAS_RES_DEVICE].blocks, 0, "tier[DEVICE].blocks with UVAS_DEVICE=none");
    CHECK_EQ(s.migrations[UVAS_RES_DEVICE], 0, "migrations[DEVICE] with UVAS_DEVICE=none");
    CHECK_OK(uvas_try_free(h));
    CHECK_OK(uvas_try_free(p));
    CHECK_OK(uvas_finalize());
}

static void device_strict(void)
{
    base_env();
    tu_setenv("UVAS_DEVICE", "none");
    tu_setenv("UVAS_DEVICE_STRICT", "1");
    tu_init_env();
    struct uvas_range_desc d = tu_range();
    CHECK_EQ(d.device_present, 0, "device_present with UVAS_DEVICE=none");
    const size_t sizes[] = {16, bs, 5 * bs + 3};
    for (size_t i = 0; i < 3; i++) {
        CHECK_NULL_ERRNO(uvas_malloc_hint(sizes[i], UVAS_HINT_DEVICE), ENODEV);
        const char *le = uvas_last_error();
        CHECK(le && *le, "strict UVAS_HINT_DEVICE failure without a uvas_last_error message");
    }
    unsigned char *p = uvas_malloc(2 * bs);
    CHECK(p != NULL, "unhinted uvas_malloc under UVAS_DEVICE_STRICT=1: %s", uvas_last_error());
    unsigned char *h = uvas_malloc_hint(100, UVAS_HINT_HOST);
    CHECK(h != NULL, "UVAS_HINT_HOST under UVAS_DEVICE_STRICT=1: %s", uvas_last_error());
    memset(p, 9, 2 * bs);
    memset(h, 8, 100);
    CHECK(tu_find_not(p, 2 * bs, 9) < 0 && tu_find_not(h, 100, 8) < 0, "data");
    CHECK_OK(uvas_try_free(p));
    CHECK_OK(uvas_try_free(h));
    CHECK_OK(uvas_finalize());
}

static void bad_env(const char *var, const char *value, int want, const char *named)
{
    base_env();
    tu_setenv(var, value);
    int rc = uvas_init(NULL);
    if (rc == UVAS_OK)
        uvas_finalize();
    CHECK(rc == want, "uvas_init with %s=%s returned %d (%s), expected %d (%s)", var, value, rc,
          uvas_strerror(rc), want, uvas_strerror(want));
    const char *le = uvas_last_error();
    CHECK(le && *le, "uvas_init with %s=%s failed without a message", var, value);
    if (named)
        CHECK(strstr(le, named) != NULL, "uvas_init with %s=%s: the message '%s' does not "
              "name %s", var, value, le, named);
}

int main(void)
{
    tu_deadline(50);
    tu_clear_env();
    char probe;
    int rc = uvas_migrate(&probe, 1, UVAS_LOC_HOST, 0);
    CHECK(rc == UVAS_ERR_NOT_INIT || rc == UVAS_ERR_NOT_OWNED,
          "uvas_migrate before uvas_init returned %d (%s)", rc, uvas_strerror(rc));

    bad_arguments();
    device_none();
    device_strict();
    bad_env("UVAS_DEVICE", "garbage", UVAS_ERR_ENV, "UVAS_DEVICE");
    bad_env("UVAS_DEVICE_STRICT", "2", UVAS_ERR_ENV, "UVAS_DEVICE_STRICT");
    bad_env("UVAS_DEVICE_SIZE", "abc", UVAS_ERR_ENV, "UVAS_DEVICE_SIZE");
    /* Under one block: a tier that would hold nothing (was accepted). */
    bad_env("UVAS_DEVICE_SIZE", "1", UVAS_ERR_ENV, "smaller than one block");
    bad_env("UVAS_DEVICE_SIZE", "4K", UVAS_ERR_ENV, "UVAS_DEVICE_SIZE");
    /* 0: read as the device's whole budget, silently (found by review). */
    bad_env("UVAS_DEVICE_SIZE", "0", UVAS_ERR_ENV, "0 bytes");
    unsetenv("UVAS_DEVICE_SIZE");
    bad_env("SHMEM_DEVICE_SYMMETRIC_SIZE", "0", UVAS_ERR_ENV, "SHMEM_DEVICE_SYMMETRIC_SIZE");
    unsetenv("SHMEM_DEVICE_SYMMETRIC_SIZE");
    bad_env("UVAS_DEVICE", "7", UVAS_ERR_NO_DEVICE, NULL);

    /* Still usable after the failures. */
    base_env();
    tu_init_env();
    unsigned char *p = uvas_malloc(100);
    CHECK(p != NULL, "uvas_malloc after failed inits");
    memset(p, 1, 100);
    CHECK_OK(uvas_try_free(p));
    CHECK_OK(uvas_finalize());
    printf("migrate-errors: OK\n");
    return 0;
}
