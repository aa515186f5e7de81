/*
 * struct uvas_options: invalid fields give UVAS_ERR_INVAL (and set up
 * nothing); valid fields are reported by uvas_range(); a non-zero field
 * wins over the environment; a zeroed struct is the same as NULL.
 * Each case runs in its own child.
 */
#include "check.h"

#define KiB ((size_t)1024)
#define MiB (KiB * 1024)
#define TiB (MiB * 1024 * 1024)

static int expect_inval(const struct uvas_options *o, const char *what)
{
    int st = uvas_init(o);
    CHECK(st == UVAS_ERR_INVAL, "%s: uvas_init %d (%s), expected UVAS_ERR_INVAL",
          what, st, uvas_strerror(st));
    CHECK(uvas_last_error()[0] != '\0', "%s: no last error message", what);
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);
    return 0;
}

static int invalid_options(void *arg)
{
    (void)arg;
    tu_clear_env();
    struct uvas_options o;
    static const size_t bad_blocks[] = {3000, 4 * MiB, 2 * KiB, 1, 4097,
                                        96 * KiB, 3 * MiB};
    for (size_t i = 0; i < sizeof bad_blocks / sizeof bad_blocks[0]; i++) {
        memset(&o, 0, sizeof o);
        o.size = 32 * MiB;
        o.block_size = bad_blocks[i];
        char what[64];
        snprintf(what, sizeof what, "block_size %zu", bad_blocks[i]);
        expect_inval(&o, what);
    }
    static const size_t bad_sizes[] = {KiB, 15 * MiB, 65 * TiB, 100 * TiB,
                                       SIZE_MAX};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        memset(&o, 0, sizeof o);
        o.size = bad_sizes[i];
        char what[64];
        snprintf(what, sizeof what, "size %zu", bad_sizes[i]);
        expect_inval(&o, what);
    }
    static const uintptr_t bad_bases[] = {0x300000001000ull, 0x300000100000ull,
                                          0x800000000000ull, 0xffff800000000000ull};
    for (size_t i = 0; i < sizeof bad_bases / sizeof bad_bases[0]; i++) {
        memset(&o, 0, sizeof o);
        o.size = 32 * MiB;
        o.base = bad_bases[i];
        char what[64];
        snprintf(what, sizeof what, "base 0x%llx",
                 (unsigned long long)bad_bases[i]);
        expect_inval(&o, what);
    }
    memset(&o, 0, sizeof o);
    o.size = 32 * MiB;
    o.fault_mode = 7;
    expect_inval(&o, "fault_mode 7");
    o.fault_mode = -1;
    expect_inval(&o, "fault_mode -1");
    memset(&o, 0, sizeof o);
    o.size = 32 * MiB;
    o.fault_threads = 257;
    expect_inval(&o, "fault_threads 257");
    memset(&o, 0, sizeof o);
    o.size = 32 * MiB;
    o.policy = "nope";
    expect_inval(&o, "policy \"nope\"");
    return 0;
}

static int valid_options(void *arg)
{
    (void)arg;
    tu_clear_env();
    struct uvas_options o = {0};
    o.size = 48 * MiB + 1; /* rounded up to 50 MiB */
    o.base = 0x310000000000ull;
    o.block_size = 128 * KiB;
    o.fault_mode = UVAS_FAULT_EAGER;
    o.policy = "host";
    o.flags = UVAS_INIT_QUIET;
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_range();
    CHECK_EQ(d.size, 50 * MiB, "size");
    CHECK(d.base == (void *)0x310000000000ull, "base %p", d.base);
    CHECK_EQ(d.block_size, 128 * KiB, "block_size");
    CHECK_EQ(d.fault_mode, UVAS_FAULT_EAGER, "fault_mode");
    CHECK_EQ(d.fault_threads, 0, "fault_threads in eager mode");
    CHECK(strcmp(d.policy, "host") == 0, "policy \"%s\"", d.policy);
    CHECK_EQ(d.device_present, 0, "device_present");
    CHECK_OK(uvas_finalize());
    return 0;
}

/* A non-zero option wins over a (valid) environment variable. */
static int options_win(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    tu_setenv("UVAS_BLOCK_SIZE", "4K");
    tu_setenv("UVAS_BASE", "0x320000000000");
    tu_setenv("UVAS_FAULT", "uffd");
    tu_setenv("UVAS_POLICY", "device");
    struct uvas_options o = {0};
    o.size = 32 * MiB;
    o.block_size = 256 * KiB;
    o.base = 0x330000000000ull;
    o.fault_mode = UVAS_FAULT_EAGER;
    o.policy = "host";
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_range();
    CHECK_EQ(d.size, 32 * MiB, "size (option over UVAS_SIZE=1G)");
    CHECK_EQ(d.block_size, 256 * KiB, "block_size (option over 4K)");
    CHECK(d.base == (void *)0x330000000000ull,
          "base %p (option over UVAS_BASE)", d.base);
    CHECK_EQ(d.fault_mode, UVAS_FAULT_EAGER, "fault_mode (option over uffd)");
    CHECK(strcmp(d.policy, "host") == 0, "policy \"%s\" (option over device)",
          d.policy);
    CHECK_OK(uvas_finalize());

    /* Zero fields fall back to the environment. */
    unsetenv("UVAS_FAULT");
    memset(&o, 0, sizeof o);
    o.block_size = 8 * KiB;
    CHECK_OK(uvas_init(&o));
    d = tu_range();
    CHECK_EQ(d.size, 1024 * MiB, "size from UVAS_SIZE");
    CHECK_EQ(d.block_size, 8 * KiB, "block_size from the option");
    CHECK(d.base == (void *)0x320000000000ull, "base %p from UVAS_BASE",
          d.base);
    CHECK(strcmp(d.policy, "device") == 0, "policy \"%s\" from UVAS_POLICY",
          d.policy);
    CHECK_OK(uvas_finalize());
    return 0;
}

/* A zeroed struct is the same as NULL: init twice succeeds. */
static int zero_is_null(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    tu_setenv("UVAS_BLOCK_SIZE", "16K");
    struct uvas_options o = {0};
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_range();
    CHECK_EQ(d.size, 64 * MiB, "size");
    CHECK_EQ(d.block_size, 16 * KiB, "block_size");
    CHECK_OK(uvas_init(NULL));
    CHECK_OK(uvas_init(&o));
    CHECK_OK(uvas_finalize());
    return 0;
}

/* A device index past the devices here is named as the program gave it:
 * options.device=64 was reported as "UVAS_DEVICE=63", a variable nobody
 * set (found by review). */
static int device_named(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    struct uvas_options o = {0};
    o.device = 64;
    o.flags = UVAS_INIT_QUIET;
    int st = uvas_init(&o);
    if (st == UVAS_OK) { /* 64 devices here: nothing to check */
        CHECK_OK(uvas_finalize());
        return 0;
    }
    CHECK_STATUS(st, UVAS_ERR_NO_DEVICE);
    CHECK(strstr(uvas_last_error(), "options.device=64") &&
              !strstr(uvas_last_error(), "UVAS_DEVICE"),
          "options.device=64 refused as '%s'", uvas_last_error());
    tu_setenv("UVAS_DEVICE", "63");
    st = uvas_init(NULL);
    CHECK_STATUS(st, UVAS_ERR_NO_DEVICE);
    CHECK(strstr(uvas_last_error(), "UVAS_DEVICE=63"), "UVAS_DEVICE=63 refused as '%s'",
          uvas_last_error());
    return 0;
}

int main(void)
{
    tu_deadline(55);
    int (*const cases[])(void *) = {invalid_options, valid_options,
                                    options_win, zero_is_null, device_named};
    const char *const names[] = {"invalid options", "valid options",
                                 "options win over env", "zeroed == NULL", "device named"};
    int failed = 0;
    for (size_t i = 0; i < 5; i++) {
        int rc = tu_run_child(cases[i], NULL, 20);
        if (rc != 0) {
            fprintf(stderr, "case %s failed: status %d\n", names[i], rc);
            failed = 1;
        }
    }
    return failed ? TU_EXIT_FAIL : TU_EXIT_PASS;
}
