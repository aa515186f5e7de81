/*
 * Size classes for every block size: increasing, 16-byte multiples up to
 * an eighth of a block, at most 25% slack past 128 bytes, and the class
 * chosen for (size, align) is the smallest that fits with aligned slots;
 * the slot of every offset of a block, found by multiplying, is the one
 * division gives.
 */
#include "../check.h"
#include "uvas/slab.h"

int main(void)
{
    for (size_t bs = 4096; bs <= (2u << 20); bs *= 2) {
        struct uvas_slabs s;
        CHECK_OK(uvas_slabs_init(&s, bs, 4));
        CHECK(s.nclasses > 0 && s.nclasses <= UVAS_SLAB_MAX_CLASSES, "block %zu: %u classes",
              bs, s.nclasses);
        CHECK((long long)((size_t)s.max_small) == (long long)(bs / 8), "block %zu: largest class", bs);
        for (uint32_t c = 0; c < s.nclasses; c++) {
            CHECK(s.class_size[c] % 16 == 0, "block %zu: class %u = %u", bs, c, s.class_size[c]);
            CHECK(c == 0 || s.class_size[c] > s.class_size[c - 1], "block %zu: order", bs);
            if (c && s.class_size[c - 1] >= 128)
                CHECK(s.class_size[c] <= s.class_size[c - 1] + s.class_size[c - 1] / 4 + 16,
                      "block %zu: class %u slack", bs, c);
        }
        if (bs == (2u << 20) || bs == 4096) /* every offset of the largest block */
            for (uint32_t c = 0; c < s.nclasses; c++)
                for (size_t off = 0; off < bs; off++)
                    if (uvas_slab_slot(&s, c, off) != off / s.class_size[c])
                        FAIL("block %zu, class %u: slot of offset %zu is %u, not %zu", bs,
                             s.class_size[c], off, uvas_slab_slot(&s, c, off),
                             off / s.class_size[c]);
        for (size_t size = 1; size <= s.max_small; size += 1 + size / 7)
            for (size_t al = 16; al <= 4096; al *= 2) {
                int c = uvas_slab_class(&s, size, al);
                if (al > s.max_small) {
                    CHECK(c < 0, "block %zu: align %zu cannot be small", bs, al);
                    continue;
                }
                CHECK(c >= 0, "block %zu: no class for size %zu align %zu", bs, size, al);
                uint32_t cs = s.class_size[c];
                CHECK(cs >= size && cs % al == 0, "block %zu: class %u for %zu/%zu", bs, cs,
                      size, al);
                for (int d = 0; d < c; d++)
                    CHECK(s.class_size[d] < size || s.class_size[d] % al,
                          "block %zu: class %u fits %zu/%zu better than %u", bs,
                          s.class_size[d], size, al, cs);
            }
        CHECK(uvas_slab_class(&s, s.max_small + 1, 16) < 0, "block %zu: too big", bs);
        /* slots: lowest free first, put back frees exactly one */
        uint32_t n = (uint32_t)(bs / s.class_size[0]);
        for (uint32_t i = 0; i < n; i++)
            CHECK((long long)(uvas_slab_take_slot(&s, 1, n)) == (long long)((long)i), "block %zu: slot order", bs);
        CHECK((long long)(uvas_slab_take_slot(&s, 1, n)) == (long long)(-1L), "block %zu: full slab", bs);
        uvas_slab_put_slot(&s, 1, n / 2);
        CHECK(!uvas_slab_live(&s, 1, n / 2) && uvas_slab_live(&s, 1, n / 2 + 1), "put");
        CHECK((long long)(uvas_slab_take_slot(&s, 1, n)) == (long long)((long)(n / 2)), "block %zu: refill", bs);
        CHECK(!uvas_slab_live(&s, 0, 0) && !uvas_slab_live(&s, 2, 0), "neighbours untouched");
        uvas_slabs_fini(&s);
    }
    return 0;
}
