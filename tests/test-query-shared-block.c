/*
 * Small allocations (at most block_size/8) of the same hint may share a
 * block; residence is per block: touching one allocation makes the query
 * of another allocation in the same block report UVAS_RES_HOST too, while
 * small allocations in other blocks stay unpopulated (uffd mode).
 */
#include "check.h"

#define N 64

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;
    size_t sz = bs / 8 < 64 ? bs / 8 : 64;

    unsigned char *v[N];
    for (int i = 0; i < N; i++) {
        v[i] = uvas_malloc(sz);
        CHECK(v[i] != NULL, "uvas_malloc(%zu)", sz);
        CHECK_EQ(tu_residence(v[i]), UVAS_RES_UNPOPULATED,
                 "fresh small allocation");
    }
    /* Find two allocations in one block. */
    int a = -1, b = -1;
    for (int i = 0; i < N && a < 0; i++)
        for (int j = i + 1; j < N; j++)
            if ((uintptr_t)v[i] / bs == (uintptr_t)v[j] / bs) {
                a = i;
                b = j;
                break;
            }
    if (a < 0)
        SKIP("no two of %d allocations of %zu bytes share a block of %zu "
             "(allowed, so the shared-block case cannot be tested)", N, sz,
             bs);

    struct uvas_ptr_info ia, ib;
    CHECK_OK(uvas_query(v[a], &ia));
    CHECK_OK(uvas_query(v[b], &ib));
    CHECK(ia.block_base == ib.block_base, "block_base %p vs %p",
          ia.block_base, ib.block_base);
    CHECK(ia.alloc_base == v[a] && ib.alloc_base == v[b],
          "alloc_base %p/%p, expected %p/%p", ia.alloc_base, ib.alloc_base,
          (void *)v[a], (void *)v[b]);
    CHECK_EQ(ib.residence, UVAS_RES_UNPOPULATED, "neighbour before touch");

    /* Touch a (write), b reports HOST; every allocation in that block too. */
    v[a][sz - 1] = 0x5c;
    CHECK_EQ(tu_residence(v[a]), UVAS_RES_HOST, "touched allocation");
    CHECK_EQ(tu_residence(v[b]), UVAS_RES_HOST,
             "other allocation in the touched block");
    CHECK(tu_find_not(v[b], sz, 0) < 0, "neighbour not zero");
    for (int i = 0; i < N; i++) {
        int same = (uintptr_t)v[i] / bs == (uintptr_t)v[a] / bs;
        int res = tu_residence(v[i]);
        CHECK(res == (same ? UVAS_RES_HOST : UVAS_RES_UNPOPULATED),
              "allocation %d (%s block): residence %d", i,
              same ? "the touched" : "another", res);
    }

    /* A read of an allocation in another block populates that block. */
    for (int i = 0; i < N; i++) {
        if ((uintptr_t)v[i] / bs != (uintptr_t)v[a] / bs) {
            CHECK(tu_read_byte(v[i]) == 0, "fresh byte not zero");
            CHECK_EQ(tu_residence(v[i]), UVAS_RES_HOST, "after a read");
            for (int j = 0; j < N; j++)
                if ((uintptr_t)v[j] / bs == (uintptr_t)v[i] / bs)
                    CHECK_EQ(tu_residence(v[j]), UVAS_RES_HOST,
                             "neighbour of the read allocation");
            break;
        }
    }
    CHECK(v[a][sz - 1] == 0x5c, "written byte lost");
    for (int i = 0; i < N; i++)
        CHECK_OK(uvas_try_free(v[i]));
    CHECK_OK(uvas_finalize());
    return 0;
}
