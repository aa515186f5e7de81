/*
 * Hinted allocations, run with the device tier (when the machine has one)
 * and with UVAS_DEVICE=none. UVAS_HINT_HOST memory is placed on the host
 * tier at allocation (it never moves: peers may hold direct pointers). UVAS_HINT_DEVICE memory lives on the device from the
 * allocation on, and a CPU touch brings it back to the host; without a
 * device tier it is placed on the host tier (documented fallback, not an
 * error). Unhinted memory under the default policy lands on host. Small
 * hinted allocations never share a block with allocations of another
 * hint. Data works in all of them (uffd mode).
 */
#include "check.h"

#define N 40

static void run(void)
{
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;
    const unsigned hints[3] = {0, UVAS_HINT_HOST, UVAS_HINT_DEVICE};
    const char *hname[3] = {"none", "HOST", "DEVICE"};

    for (int h = 0; h < 3; h++) {
        const size_t sizes[] = {32, bs / 8, bs + 1, 3 * bs};
        for (size_t i = 0; i < 4; i++) {
            size_t n = sizes[i];
            unsigned char *p = uvas_malloc_hint(n, hints[h]);
            CHECK(p != NULL, "uvas_malloc_hint(%zu, %s) failed: %s", n,
                  hname[h], uvas_last_error());
            int before = hints[h] == UVAS_HINT_DEVICE && d.device_present ? UVAS_RES_DEVICE
                         : hints[h] == UVAS_HINT_HOST                   ? UVAS_RES_HOST
                                                                        : UVAS_RES_UNPOPULATED;
            CHECK_EQ(tu_residence(p), before, "hinted allocation before touch");
            CHECK_EQ(tu_residence(p + n - 1), before, "its last byte before touch");
            CHECK(tu_find_not(p, n, 0) < 0, "hint %s: fresh memory not zero",
                  hname[h]);
            memset(p, 0x40 + h, n);
            int res = tu_residence(p);
            int res_end = tu_residence(p + n - 1);
            CHECK(res == UVAS_RES_HOST && res_end == UVAS_RES_HOST,
                  "hint %s, size %zu, device_present %d: residence %s/%s "
                  "after a CPU touch, expected host", hname[h], n,
                  d.device_present, uvas_residence_name(res),
                  uvas_residence_name(res_end));
            CHECK(tu_find_not(p, n, 0x40 + h) < 0, "hint %s: data lost",
                  hname[h]);
            struct uvas_ptr_info info;
            CHECK_OK(uvas_query(p, &info));
            CHECK_EQ(info.alloc_hints, hints[h], "alloc_hints");
            CHECK_OK(uvas_try_free(p));
        }
    }

    /* Aligned allocations with hints. */
    unsigned char *a = uvas_aligned_alloc(4 * bs, 100, UVAS_HINT_DEVICE);
    CHECK(a != NULL && (uintptr_t)a % (4 * bs) == 0, "aligned DEVICE alloc");
    if (d.device_present)
        CHECK_EQ(tu_residence(a), UVAS_RES_DEVICE, "aligned DEVICE residence");
    a[99] = 1;
    CHECK_EQ(tu_residence(a), UVAS_RES_HOST, "aligned DEVICE residence after a CPU touch");
    CHECK_OK(uvas_try_free(a));

    /* Small allocations of different hints never share a block. */
    unsigned char *v[3][N];
    for (int i = 0; i < N; i++)
        for (int h = 0; h < 3; h++) {
            v[h][i] = uvas_malloc_hint(48, hints[h]);
            CHECK(v[h][i] != NULL, "small hinted allocation");
        }
    for (int h = 0; h < 3; h++)
        for (int g = h + 1; g < 3; g++)
            for (int i = 0; i < N; i++)
                for (int j = 0; j < N; j++)
                    CHECK((uintptr_t)v[h][i] / bs != (uintptr_t)v[g][j] / bs,
                          "a %s and a %s allocation share the block of %p",
                          hname[h], hname[g], (void *)v[h][i]);
    for (int i = 0; i < N; i++)
        for (int h = 0; h < 3; h++)
            CHECK_OK(uvas_try_free(v[h][i]));
    CHECK_OK(uvas_finalize());
}

int main(void)
{
    tu_deadline(50);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    run();
    tu_setenv("UVAS_DEVICE", "none");
    run();
    return 0;
}
