/*
 * UVAS_BASE: hex and decimal addresses, "any"/"auto" (the kernel chooses),
 * rejected values (UVAS_ERR_ENV), and a base whose range is already mapped
 * (UVAS_ERR_ADDR_IN_USE naming UVAS_BASE, the existing mapping untouched).
 * Whatever the base, uvas_aligned_alloc's alignments beyond the block size
 * hold for the address (a base 2 MiB but not 4 MiB aligned gave 4 MiB
 * alignments at the base: found by review).
 * Each case runs in its own child process, before any uvas_init.
 */
#include <sys/mman.h>

#include "check.h"

#define MiB ((size_t)1024 * 1024)

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

struct good_case {
    const char *value;
    uintptr_t expect; /* 0: the kernel chooses */
};

static const struct good_case good[] = {
    {"0x300000000000", 0x300000000000ull},
    {"0x300000200000", 0x300000200000ull},
    {"52776558133248", 0x300000000000ull}, /* decimal */
    {"0x200000000000", UVAS_DEFAULT_BASE},
    {"any", 0},
    {"auto", 0},
};

static const char *const bad[] = {
    "0x300000001000", /* not 2 MiB aligned */
    "0x300000100000", /* 1 MiB: not 2 MiB aligned */
    "0",              /* zero */
    "0x0",
    "0x800000000000", /* not below 0x800000000000 */
    "0x900000000000",
    "0x7ffffe200000", /* aligned, but its 32 MiB would run past the address space */
    "xyz",
    "",
    "0x30000000000g",
    "-2097152",
    "1", /* options.base's spelling of 'any', not an address (was accepted as 'any') */
    "0x1",
};

static int run_good(void *arg)
{
    const struct good_case *c = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    tu_setenv("UVAS_BASE", c->value);
    int st = uvas_init(NULL);
    CHECK(st == 0, "UVAS_BASE=\"%s\": uvas_init returned %d (%s)", c->value,
          st, uvas_strerror(st));
    struct uvas_range_desc d = tu_range();
    if (c->expect)
        CHECK(d.base == (void *)c->expect,
              "UVAS_BASE=\"%s\": base %p, expected %p", c->value, d.base,
              (void *)c->expect);
    else
        CHECK(d.base != NULL && d.base != (void *)UVAS_BASE_ANY,
              "UVAS_BASE=\"%s\": base %p", c->value, d.base);
    CHECK_EQ(d.size, 32 * MiB, "range size");
    void *p = uvas_malloc(100);
    CHECK(p != NULL, "uvas_malloc failed: errno %d", errno);
    CHECK(tu_in_range(&d, p, 100), "allocation %p outside [%p, +%zu)", p,
          d.base, d.size);
    memset(p, 0x5a, 100);
    /* Blocks are aligned: block_base is ptr rounded down to block_size. */
    char *q = uvas_malloc(3 * d.block_size);
    CHECK(q != NULL, "uvas_malloc failed: errno %d", errno);
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(q + d.block_size + 1, &info));
    uintptr_t want = (uintptr_t)(q + d.block_size + 1) & ~(d.block_size - 1);
    CHECK((uintptr_t)info.block_base == want,
          "UVAS_BASE=\"%s\": block_base %p for %p, expected %p (rounded down "
          "to the block size)", c->value, info.block_base,
          (void *)(q + d.block_size + 1), (void *)want);
    uvas_free(q);
    for (size_t align = 2 * d.block_size; align <= 8 * MiB; align *= 2) {
        char *a = uvas_aligned_alloc(align, d.block_size, 0);
        CHECK(a != NULL, "UVAS_BASE=\"%s\": uvas_aligned_alloc(%zu) failed", c->value, align);
        CHECK((uintptr_t)a % align == 0, "UVAS_BASE=\"%s\": uvas_aligned_alloc(%zu) = %p, "
              "not aligned (base %p)", c->value, align, (void *)a, d.base);
        uvas_free(a);
    }
    uvas_free(p);
    CHECK((uintptr_t)d.base % d.block_size == 0,
          "UVAS_BASE=\"%s\": base %p not aligned to the block size %zu",
          c->value, d.base, d.block_size);

    CHECK_OK(uvas_finalize());
    return 0;
}

static int run_bad(void *arg)
{
    const char *value = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    tu_setenv("UVAS_BASE", value);
    int st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ENV,
          "UVAS_BASE=\"%s\": uvas_init returned %d (%s), expected UVAS_ERR_ENV",
          value, st, uvas_strerror(st));
    const char *msg = uvas_last_error();
    CHECK(strstr(msg, "UVAS_BASE") != NULL,
          "UVAS_BASE=\"%s\": last error \"%s\" does not name UVAS_BASE", value,
          msg);
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);
    return 0;
}

/* An existing mapping inside the requested range: ADDR_IN_USE. */
static int run_in_use(void *arg)
{
    (void)arg;
    const uintptr_t taken = 0x340000000000ull;
    tu_clear_env();
    void *m = mmap((void *)taken, 2 * MiB, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (m == MAP_FAILED || m != (void *)taken)
        SKIP("cannot map the probe region at %p: %s", (void *)taken,
             strerror(errno));
    memset(m, 0xc3, 2 * MiB);

    /* The range starts exactly on the mapping. */
    tu_setenv("UVAS_SIZE", "16M");
    tu_setenv("UVAS_BASE", "0x340000000000");
    int st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ADDR_IN_USE,
          "base on a mapped region: uvas_init returned %d (%s), expected "
          "UVAS_ERR_ADDR_IN_USE", st, uvas_strerror(st));
    CHECK(strstr(uvas_last_error(), "UVAS_BASE") != NULL,
          "last error \"%s\" does not name UVAS_BASE", uvas_last_error());

    /* The range ends on it (the mapping is 8 MiB into a 16 MiB range). */
    tu_setenv("UVAS_BASE", "0x33ffff800000");
    st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ADDR_IN_USE,
          "range overlapping a mapped region: uvas_init returned %d (%s), "
          "expected UVAS_ERR_ADDR_IN_USE", st, uvas_strerror(st));
    CHECK(strstr(uvas_last_error(), "UVAS_BASE") != NULL,
          "last error \"%s\" does not name UVAS_BASE", uvas_last_error());

    /* Through the options, too. */
    tu_clear_env();
    struct uvas_options o = {0};
    o.size = 16 * MiB;
    o.base = taken;
    st = uvas_init(&o);
    CHECK(st == UVAS_ERR_ADDR_IN_USE,
          "options.base on a mapped region: uvas_init returned %d (%s), "
          "expected UVAS_ERR_ADDR_IN_USE", st, uvas_strerror(st));

    /* Nothing changed: the mapping and its data are intact. */
    long bad = tu_find_not(m, 2 * MiB, 0xc3);
    CHECK(bad < 0, "the existing mapping was modified at offset %ld", bad);
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);

    /* A free base works afterwards. */
    tu_setenv("UVAS_SIZE", "16M");
    tu_setenv("UVAS_BASE", "0x360000000000");
    st = uvas_init(NULL);
    CHECK(st == 0, "free base after ADDR_IN_USE: init %d (%s)", st,
          uvas_strerror(st));
    CHECK(tu_range().base == (void *)0x360000000000ull, "base %p",
          tu_range().base);
    CHECK_OK(uvas_finalize());
    bad = tu_find_not(m, 2 * MiB, 0xc3);
    CHECK(bad < 0, "the existing mapping was modified at offset %ld", bad);
    munmap(m, 2 * MiB);
    return 0;
}

int main(void)
{
    tu_deadline(55);
    int failed = 0, rc;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        rc = tu_run_child(run_good, (void *)&good[i], 20);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_BASE=\"%s\" (valid) failed: status %d\n",
                    good[i].value, rc);
            failed = 1;
        }
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rc = tu_run_child(run_bad, (void *)bad[i], 20);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_BASE=\"%s\" (invalid) failed: status %d\n",
                    bad[i], rc);
            failed = 1;
        }
    }
    rc = tu_run_child(run_in_use, NULL, 20);
    if (rc == TU_EXIT_SKIP && !failed)
        return TU_EXIT_SKIP;
    if (rc != 0 && rc != TU_EXIT_SKIP) {
        fprintf(stderr, "case address-in-use failed: status %d\n", rc);
        failed = 1;
    }
    return failed ? TU_EXIT_FAIL : TU_EXIT_PASS;
}
