/*
 * With injection off (UVAS_INJECT unset, or empty) nothing is injected and
 * nothing is counted: a workload that passes every site the build can
 * reach here (range mapping, memfd sizing, device slabs and their export,
 * copies, host imports, CPU views) leaves uvas_stats.injected all zero,
 * no site sees a call, uvas_inject_on stays false, and uvas_stats_print
 * prints no "injected" line.
 */
#include "inject-util.h"

static void workload(void)
{
    struct uvas_range_desc d = tu_range();
    size_t bs = d.block_size, len = 8 * bs;
    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    ti_fill(p, len, 1);
    if (d.device_present && d.fault_mode == UVAS_FAULT_UFFD) {
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_advise(p, bs, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
        ti_verify(p, len, 1, bs, "after a trip to the device");
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_HOST, 0));
    }
    ti_verify(p, len, 1, bs, "workload data");
    uvas_free(p);
}

static void expect_nothing(const char *when)
{
    CHECK(!atomic_load(&uvas_inject_on), "%s: uvas_inject_on is set", when);
    struct uvas_stats s = tu_stats();
    for (int i = 0; i < UVAS_INJ_COUNT; i++) {
        CHECK(s.injected[i] == 0, "%s: injected[%s] is %llu", when,
              uvas_inject_site_name((enum uvas_inject_site)i),
              (unsigned long long)s.injected[i]);
        CHECK(uvas_inject_calls((enum uvas_inject_site)i) == 0, "%s: site %s counted %llu calls",
              when, uvas_inject_site_name((enum uvas_inject_site)i),
              (unsigned long long)uvas_inject_calls((enum uvas_inject_site)i));
    }
    char buf[8192] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    CHECK(f != NULL, "fmemopen");
    CHECK_OK(uvas_stats_print(f));
    fclose(f);
    CHECK(!strstr(buf, "inject"), "%s: uvas_stats_print mentions injection:\n%s", when, buf);
}

int main(void)
{
    tu_deadline(60);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_init_env();
    workload();
    expect_nothing("UVAS_INJECT unset");
    CHECK_OK(uvas_finalize());

    tu_setenv("UVAS_INJECT", "");
    tu_init_env();
    workload();
    expect_nothing("UVAS_INJECT empty");
    CHECK_OK(uvas_finalize());
    printf("injection off: nothing injected or counted\n");
    return 0;
}
