/*
 * uvas_init / uvas_finalize life cycle: finalize without init is
 * UVAS_ERR_NOT_INIT; init twice with the same effective options is 0 and
 * changes nothing; with different options UVAS_ERR_ALREADY_INIT (the live
 * range untouched); after finalize the range is released and init with any
 * valid options works again, repeatedly, without leaking descriptors.
 */
#include <sys/mman.h>

#include "check.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define KiB ((size_t)1024)
#define MiB (KiB * 1024)

/* Is [p, p+len) free of mappings? Probe with MAP_FIXED_NOREPLACE. */
static int range_is_free(void *p, size_t len)
{
    void *m = mmap(p, len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                       MAP_FIXED_NOREPLACE, -1, 0);
    if (m == MAP_FAILED)
        return 0;
    munmap(m, len);
    return m == p;
}

int main(void)
{
    tu_deadline(55);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");

    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);

    tu_init_env();
    struct uvas_range_desc d = tu_range();
    CHECK(d.base == (void *)UVAS_DEFAULT_BASE, "default base %p", d.base);
    CHECK_EQ(d.size, 64 * MiB, "size");
    CHECK(d.device_present ? d.device_name[0] && d.device_capacity > 0 &&
                                 (!strcmp(d.device_kind, "hardware") ||
                                  !strcmp(d.device_kind, "software"))
                           : !strcmp(d.device_kind, "none") && d.device_capacity == 0,
          "device fields: present %d, name '%s', kind '%s', capacity %zu", d.device_present,
          d.device_name, d.device_kind, d.device_capacity);
    CHECK(d.device_note && d.device_note[0], "device_note says what backs the tier");
    CHECK(d.policy && strcmp(d.policy, "first-touch") == 0,
          "default policy \"%s\"", d.policy ? d.policy : "(null)");

    char *p = uvas_malloc(1000);
    CHECK(p != NULL, "uvas_malloc failed: errno %d", errno);
    memcpy(p, "lifecycle", 10);

    /* Same effective options, stated three ways. */
    CHECK_OK(uvas_init(NULL));
    struct uvas_options same = {0};
    CHECK_OK(uvas_init(&same));
    same.size = d.size;
    same.block_size = d.block_size;
    same.base = (uintptr_t)d.base;
    CHECK_OK(uvas_init(&same));

    /* Different options: refused, the range unchanged. */
    struct uvas_options other = {0};
    other.block_size = d.block_size == 4 * KiB ? 8 * KiB : 4 * KiB;
    CHECK_STATUS(uvas_init(&other), UVAS_ERR_ALREADY_INIT);
    CHECK(uvas_last_error()[0] != '\0', "no message for ALREADY_INIT");
    memset(&other, 0, sizeof other);
    other.size = 128 * MiB;
    CHECK_STATUS(uvas_init(&other), UVAS_ERR_ALREADY_INIT);
    memset(&other, 0, sizeof other);
    other.base = 0x310000000000ull;
    CHECK_STATUS(uvas_init(&other), UVAS_ERR_ALREADY_INIT);

    struct uvas_range_desc d2 = tu_range();
    CHECK(d2.base == d.base && d2.size == d.size &&
              d2.block_size == d.block_size && d2.fault_mode == d.fault_mode,
          "range changed by a refused init");
    CHECK(strcmp(p, "lifecycle") == 0, "allocation contents changed");
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(p, &info));
    CHECK(info.alloc_base == p && info.alloc_size == 1000,
          "allocation changed: base %p size %zu", info.alloc_base,
          info.alloc_size);
    uvas_free(p);

    CHECK_OK(uvas_finalize());
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);
    CHECK(range_is_free(d.base, d.size),
          "the range [%p, +%zu) is still mapped after uvas_finalize", d.base,
          d.size);

    /* Init with other options works after finalize. */
    struct uvas_options o = {0};
    o.size = 32 * MiB;
    o.block_size = 4 * KiB;
    CHECK_OK(uvas_init(&o));
    d2 = tu_range();
    CHECK_EQ(d2.block_size, 4 * KiB, "block_size after re-init");
    CHECK_EQ(d2.size, 32 * MiB, "size after re-init");
    p = uvas_malloc(3 * 4096);
    CHECK(p != NULL, "uvas_malloc after re-init failed");
    CHECK(tu_find_not(p, 3 * 4096, 0) < 0,
          "fresh memory after re-init is not zero");
    memset(p, 1, 3 * 4096);
    uvas_free(p);
    CHECK_OK(uvas_finalize());

    /* Cycles release everything: descriptors and the range. */
    int fds0 = tu_count_fds();
    for (int i = 0; i < 20; i++) {
        memset(&o, 0, sizeof o);
        o.size = 16 * MiB;
        o.block_size = (size_t)4096 << (i % 10);
        CHECK(uvas_init(&o) == 0, "cycle %d: init failed: %s", i,
              uvas_last_error());
        char *q = uvas_malloc(5000);
        CHECK(q != NULL, "cycle %d: malloc failed", i);
        CHECK(tu_read_byte(q + 4999) == 0, "cycle %d: not zero", i);
        q[0] = 1;
        CHECK_OK(uvas_finalize());
    }
    int fds1 = tu_count_fds();
    CHECK(fds1 == fds0, "descriptor leak: %d open before 20 init/finalize "
          "cycles, %d after", fds0, fds1);
    CHECK(range_is_free((void *)UVAS_DEFAULT_BASE, 16 * MiB),
          "the range is still mapped after the cycles");
    return 0;
}
