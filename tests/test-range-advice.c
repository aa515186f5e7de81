/*
 * The range's mapping carries the advice uvas gives it, read back from
 * /proc/self/smaps (VmFlags) for every mapping the range spans:
 *  - "dc" (MADV_DONTFORK): a fork() child does not share the heap;
 *  - "rr" (MADV_RANDOM): unmapping the range's pages does not feed the
 *    kernel's LRU aging, which on a range's second migration to the device
 *    moved every page to the active list and halved the unmapping's pace
 *    (docs/migration.md). Without the advice this fails.
 * Both hold after migrations and the user's own use of the range.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"

/* Checks that every mapping of /proc/self/smaps overlapping [lo, hi) has
 * each flag of `flags` in its VmFlags; returns the mappings seen. */
static int expect_flags(uintptr_t lo, uintptr_t hi, const char *const *flags, size_t nflags,
                        const char *when)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f, "cannot open /proc/self/smaps");
    char line[512];
    bool in = false;
    int seen = 0;
    unsigned long a = 0, b = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long x, y;
        if (sscanf(line, "%lx-%lx ", &x, &y) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = x < hi && y > lo;
            a = x;
            b = y;
            continue;
        }
        if (!in || strncmp(line, "VmFlags:", 8) != 0)
            continue;
        seen++;
        for (size_t i = 0; i < nflags; i++) {
            char want[8];
            snprintf(want, sizeof want, " %s", flags[i]);
            char *at = strstr(line + 8, want);
            CHECK(at && (at[strlen(want)] == ' ' || at[strlen(want)] == '\n'),
                  "%s: the range's mapping %#lx-%#lx lacks VmFlags '%s': %s", when, a, b,
                  flags[i], line);
        }
    }
    fclose(f);
    CHECK(seen > 0, "%s: no mapping of /proc/self/smaps covers the range %#lx-%#lx", when,
          (unsigned long)lo, (unsigned long)hi);
    return seen;
}

int main(void)
{
    tu_deadline(30);
    struct uvas_range_desc d = tu_init_range("256M", "64K");
    static const char *const flags[] = {"dc", "rr"};
    uintptr_t lo = (uintptr_t)d.base, hi = lo + d.size;
    int n = expect_flags(lo, hi, flags, 2, "after uvas_init");

    /* Touched, freed and (with a device tier) migrated: userfaultfd and
     * the migrations' unmapping must not have split off a mapping
     * without the advice. */
    size_t len = 64 * d.block_size;
    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc: %s", uvas_last_error());
    memset(p, 0x5a, len);
    if (d.device_present) {
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_HOST, 0));
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
        CHECK(p[len - 1] == 0x5a, "byte after migrations: 0x%02x", p[len - 1]);
    }
    n = expect_flags(lo, hi, flags, 2, d.device_present ? "after migrations" : "after a touch");
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    printf("range-advice: dc and rr on the %d mapping(s) of the range%s: ok\n", n,
           d.device_present ? ", migrations done" : " (no device tier: no migration)");
    return 0;
}
