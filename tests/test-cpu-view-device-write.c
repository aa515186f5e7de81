/*
 * A device write into blocks the CPU reads through its view of device
 * memory (accessed-by-CPU advice), one thread, no churn: each round the
 * blocks go to the device, the CPU touches them (the view maps), the
 * device writes round v into every byte (uvas_device_access, the copy
 * engine) and the CPU must read v everywhere; every third round half the
 * area goes back to the host first. Blocks of 2 MiB, as on a GPU.
 *
 * On the H100 (the "placed" view) a byte loop over the area through the
 * view took seconds a round (uncached reads over the bus, docs/
 * reliability.md), which read as a hang at first: the check compares a
 * page at a time. The defect it was written to reduce (a device write
 * read one round behind) was the copier's: see test-advice-race and
 * unit-copy-split.
 */
#include "check.h"
#include "uvas_policy.h"

int main(void)
{
    tu_deadline(60);
    struct uvas_range_desc d = tu_init_device("256M", "2M");
    if (strstr(d.device_note, "CPU view of device blocks: none"))
        SKIP("the driver offers no CPU mapping of device memory: %s", d.device_note);
    size_t len = 2 * d.block_size;
    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    memset(p, 0, len);
    for (unsigned v = 1; v <= 30; v++) {
        CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
        CHECK(p[0] == (unsigned char)(v - 1), "round %u: byte 0 holds %u before the write", v,
              p[0]);
        CHECK_OK(uvas_device_access(p, len, 1, (unsigned char)v));
        long bad = tu_find_not(p, len, (unsigned char)v);
        CHECK(bad < 0, "round %u: byte %ld holds %u after the device wrote %u", v, bad,
              bad < 0 ? 0 : p[bad], v);
        CHECK_OK(uvas_advise(p, len, UVAS_ADVISE_UNSET_ACCESSED_BY_CPU, 0));
        if (v % 3 == 0)
            CHECK_OK(uvas_migrate(p, len / 2, UVAS_LOC_HOST, 0));
    }
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    printf("test-cpu-view-device-write: 30 rounds of device writes read through the view: ok\n");
    return 0;
}
