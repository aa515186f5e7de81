/*
 * UVAS_SIZE: accepted forms (suffixes K/M/G/T as powers of 1024, rounding
 * up to 2 MiB, the 16 MiB .. 64 TiB range) and rejected ones
 * (UVAS_ERR_ENV, with a message naming the variable and the value).
 * Each case runs in its own child process, before any uvas_init.
 */
#include "check.h"

#define KiB ((size_t)1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)
#define TiB (GiB * 1024)

struct good_case {
    const char *value;
    size_t expect;
    const char *block; /* UVAS_BLOCK_SIZE to use, NULL for default */
    const char *base;  /* UVAS_BASE to use, NULL for the default */
};

static const struct good_case good[] = {
    {"1G", GiB, NULL},
    {"65536K", 64 * MiB, NULL},
    {"16M", 16 * MiB, NULL},          /* the minimum */
    {"17M", 18 * MiB, NULL},          /* rounded up to 2 MiB */
    {"16777217", 18 * MiB, NULL},     /* plain bytes, rounded up */
    {"33554432", 32 * MiB, NULL},     /* plain bytes */
    {"2G", 2 * GiB, NULL},
    {"1T", TiB, "2M", NULL},
    /* The maximum: 64 TiB from the default base (32 TiB) would reach the
     * PIE executable near 85 TiB, so let the kernel choose the base. */
    {"64T", 64 * TiB, "2M", "any"},
};

static const char *const bad[] = {
    "12Q", "", "abc", "-5", "1G5", "1K", "100T", "15M", "0", "65T", "G",
};

static int run_good(void *arg)
{
    const struct good_case *c = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", c->value);
    if (c->block)
        tu_setenv("UVAS_BLOCK_SIZE", c->block);
    if (c->base)
        tu_setenv("UVAS_BASE", c->base);
    int st = uvas_init(NULL);
    CHECK(st == 0, "UVAS_SIZE=\"%s\": uvas_init returned %d (%s)", c->value,
          st, uvas_strerror(st));
    struct uvas_range_desc d = tu_range();
    CHECK(d.size == c->expect,
          "UVAS_SIZE=\"%s\": range size %zu, expected %zu", c->value, d.size,
          c->expect);
    CHECK(d.size % (2 * MiB) == 0, "size %zu not a multiple of 2 MiB", d.size);
    CHECK(c->base || d.base == (void *)UVAS_DEFAULT_BASE,
          "UVAS_SIZE=\"%s\": base %p, expected the default %p", c->value,
          d.base, (void *)UVAS_DEFAULT_BASE);
    /* The range is usable: an allocation lands inside it. */
    void *p = uvas_malloc(4096);
    CHECK(p != NULL, "uvas_malloc(4096) failed: errno %d", errno);
    CHECK(tu_in_range(&d, p, 4096), "allocation %p outside the range", p);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}

static int run_bad(void *arg)
{
    const char *value = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", value);
    int st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ENV,
          "UVAS_SIZE=\"%s\": uvas_init returned %d (%s), expected "
          "UVAS_ERR_ENV", value, st, uvas_strerror(st));
    const char *msg = uvas_last_error();
    CHECK(msg != NULL && strstr(msg, "UVAS_SIZE") != NULL,
          "UVAS_SIZE=\"%s\": last error \"%s\" does not name UVAS_SIZE", value,
          msg ? msg : "(null)");
    CHECK(strstr(msg, value) != NULL,
          "UVAS_SIZE=\"%s\": last error \"%s\" does not show the value", value,
          msg);
    /* Nothing was set up: finalize says so. */
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);
    /* A valid value afterwards works (the failure left no state behind). */
    tu_setenv("UVAS_SIZE", "32M");
    st = uvas_init(NULL);
    CHECK(st == 0, "after a rejected UVAS_SIZE, UVAS_SIZE=32M: init %d (%s)",
          st, uvas_strerror(st));
    CHECK_EQ(tu_range().size, 32 * MiB, "range size");
    CHECK_OK(uvas_finalize());
    return 0;
}

int main(void)
{
    tu_deadline(55);
    int failed = 0;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int rc = tu_run_child(run_good, (void *)&good[i], 20);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_SIZE=\"%s\" (valid) failed: status %d\n",
                    good[i].value, rc);
            failed = 1;
        }
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = tu_run_child(run_bad, (void *)bad[i], 20);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_SIZE=\"%s\" (invalid) failed: status %d\n",
                    bad[i], rc);
            failed = 1;
        }
    }
    return failed ? TU_EXIT_FAIL : TU_EXIT_PASS;
}
