/*
 * UVAS_BLOCK_SIZE: powers of two from 4 KiB to 2 MiB (with K/M suffixes or
 * plain bytes) are taken and reported by uvas_range() and uvas_query();
 * anything else is UVAS_ERR_ENV naming the variable. The default is a
 * valid block size. Each case runs in its own child process.
 */
#include "check.h"

#define KiB ((size_t)1024)
#define MiB (KiB * 1024)

struct good_case {
    const char *value;
    size_t expect;
};

static const struct good_case good[] = {
    {"4K", 4 * KiB},    {"4096", 4 * KiB}, {"8K", 8 * KiB},
    {"64K", 64 * KiB},  {"65536", 64 * KiB}, {"256K", 256 * KiB},
    {"1M", MiB},        {"2M", 2 * MiB},   {"2097152", 2 * MiB},
};

static const char *const bad[] = {
    "3000", "4M", "2K", "0", "abc", "", "96K", "1", "4097", "64Q", "-4K",
};

static int run_good(void *arg)
{
    const struct good_case *c = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    tu_setenv("UVAS_BLOCK_SIZE", c->value);
    int st = uvas_init(NULL);
    CHECK(st == 0, "UVAS_BLOCK_SIZE=\"%s\": uvas_init returned %d (%s)",
          c->value, st, uvas_strerror(st));
    struct uvas_range_desc d = tu_range();
    CHECK(d.block_size == c->expect,
          "UVAS_BLOCK_SIZE=\"%s\": block_size %zu, expected %zu", c->value,
          d.block_size, c->expect);
    /* A large allocation starts on a block boundary; the query agrees. */
    size_t n = 2 * d.block_size;
    char *p = uvas_malloc(n);
    CHECK(p != NULL, "uvas_malloc(%zu) failed: errno %d", n, errno);
    CHECK((uintptr_t)p % d.block_size == 0, "%p not on a %zu block boundary",
          (void *)p, d.block_size);
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(p + d.block_size + 5, &info));
    CHECK_EQ(info.block_size, c->expect, "query block_size");
    CHECK(info.block_base == p + d.block_size, "block_base %p, expected %p",
          info.block_base, (void *)(p + d.block_size));
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}

static int run_bad(void *arg)
{
    const char *value = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    tu_setenv("UVAS_BLOCK_SIZE", value);
    int st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ENV,
          "UVAS_BLOCK_SIZE=\"%s\": uvas_init returned %d (%s), expected "
          "UVAS_ERR_ENV", value, st, uvas_strerror(st));
    CHECK(strstr(uvas_last_error(), "UVAS_BLOCK_SIZE") != NULL,
          "UVAS_BLOCK_SIZE=\"%s\": last error \"%s\" does not name the "
          "variable", value, uvas_last_error());
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);
    return 0;
}

static int run_default(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    tu_init_env();
    struct uvas_range_desc d = tu_range();
    CHECK(d.block_size >= 4 * KiB && d.block_size <= 2 * MiB &&
              (d.block_size & (d.block_size - 1)) == 0,
          "default block_size %zu is not a power of two in 4K..2M",
          d.block_size);
    CHECK_OK(uvas_finalize());
    return 0;
}

int main(void)
{
    tu_deadline(55);
    int failed = 0, rc;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        rc = tu_run_child(run_good, (void *)&good[i], 20);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_BLOCK_SIZE=\"%s\" (valid) failed: "
                    "status %d\n", good[i].value, rc);
            failed = 1;
        }
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rc = tu_run_child(run_bad, (void *)bad[i], 20);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_BLOCK_SIZE=\"%s\" (invalid) failed: "
                    "status %d\n", bad[i], rc);
            failed = 1;
        }
    }
    rc = tu_run_child(run_default, NULL, 20);
    if (rc != 0) {
        fprintf(stderr, "case default block size failed: status %d\n", rc);
        failed = 1;
    }
    return failed ? TU_EXIT_FAIL : TU_EXIT_PASS;
}
