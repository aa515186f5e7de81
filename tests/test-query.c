/*
 * uvas_query (uffd mode): UVAS_ERR_NOT_OWNED for pointers outside the
 * range, inside it but never allocated, and freed; for a live allocation
 * alloc_base, alloc_size (the requested size), alloc_hints, block_size and
 * block_base (ptr rounded down to the block size); residence
 * UVAS_RES_UNPOPULATED before any touch of that block, UVAS_RES_HOST after
 * a read (a read populates) or a write of any byte of the block, while the
 * other blocks of the allocation stay unpopulated.
 */
#include "check.h"

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;
    struct uvas_ptr_info info;

    /* Not owned: outside the range, unallocated, NULL. */
    int local = 0;
    CHECK_STATUS(uvas_query(&local, &info), UVAS_ERR_NOT_OWNED);
    char *heap = malloc(32);
    CHECK(heap != NULL, "malloc");
    CHECK_STATUS(uvas_query(heap, &info), UVAS_ERR_NOT_OWNED);
    free(heap);
    CHECK_STATUS(uvas_query(NULL, &info), UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query((char *)d.base - 1, &info), UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query((char *)d.base + d.size, &info),
                 UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query((char *)d.base + d.size - 1, &info),
                 UVAS_ERR_NOT_OWNED);
    CHECK(uvas_last_error()[0] != '\0', "no message for a NOT_OWNED query");

    /* A large allocation of 4 blocks plus a bit (5 blocks). */
    size_t n = 4 * bs + 123;
    unsigned char *p = uvas_malloc(n);
    CHECK(p != NULL, "uvas_malloc(%zu)", n);
    for (size_t off = 0; off < n; off += bs / 2) {
        memset(&info, 0xee, sizeof info);
        CHECK_OK(uvas_query(p + off, &info));
        CHECK(info.alloc_base == p, "alloc_base %p, expected %p",
              info.alloc_base, (void *)p);
        CHECK_EQ(info.alloc_size, n, "alloc_size");
        CHECK_EQ(info.alloc_hints, 0, "alloc_hints");
        CHECK_EQ(info.block_size, bs, "block_size");
        CHECK(info.block_base == p + off / bs * bs, "block_base %p for %p",
              info.block_base, (void *)(p + off));
        CHECK_EQ(info.residence, UVAS_RES_UNPOPULATED,
                 "residence before any touch");
    }
    CHECK_OK(uvas_query(p + n - 1, &info));
    CHECK(info.alloc_base == p && info.block_base == p + 4 * bs,
          "last byte: alloc_base %p block_base %p", info.alloc_base,
          info.block_base);
    /* Past the requested size, inside the allocation's last block: in no
     * allocation. */
    CHECK_STATUS(uvas_query(p + n, &info), UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query(p + 5 * bs - 1, &info), UVAS_ERR_NOT_OWNED);
    /* A small allocation: the bytes after its requested size are not it. */
    unsigned char *s20 = uvas_malloc(20);
    CHECK(s20 != NULL, "uvas_malloc(20)");
    CHECK_OK(uvas_query(s20 + 19, &info));
    CHECK(info.alloc_base == s20 && info.alloc_size == 20,
          "small allocation: base %p size %zu", info.alloc_base,
          info.alloc_size);
    CHECK_STATUS(uvas_query(s20 + 20, &info), UVAS_ERR_NOT_OWNED);
    CHECK_OK(uvas_try_free(s20));

    /* Read one byte in the middle of block 1: block 1 only becomes HOST. */
    CHECK(tu_read_byte(p + bs + bs / 2 + 3) == 0, "fresh byte not zero");
    CHECK_EQ(tu_residence(p + bs), UVAS_RES_HOST, "block 1 after a read");
    CHECK_EQ(tu_residence(p + 2 * bs - 1), UVAS_RES_HOST,
             "block 1 (last byte) after a read");
    CHECK_EQ(tu_residence(p), UVAS_RES_UNPOPULATED, "block 0 untouched");
    CHECK_EQ(tu_residence(p + 2 * bs), UVAS_RES_UNPOPULATED,
             "block 2 untouched");

    /* Write the last byte of block 3. */
    tu_write_byte(p + 4 * bs - 1, 9);
    CHECK_EQ(tu_residence(p + 3 * bs), UVAS_RES_HOST, "block 3 after a write");
    CHECK_EQ(tu_residence(p + 2 * bs + 5), UVAS_RES_UNPOPULATED,
             "block 2 still untouched");
    CHECK_EQ(tu_residence(p + 4 * bs), UVAS_RES_UNPOPULATED,
             "block 4 still untouched");
    /* The tail block, through its last requested byte. */
    tu_write_byte(p + n - 1, 1);
    CHECK_EQ(tu_residence(p + 4 * bs), UVAS_RES_HOST, "block 4 after a write");
    CHECK_EQ(tu_residence(p), UVAS_RES_UNPOPULATED, "block 0 still untouched");
    CHECK(tu_read_byte(p + 4 * bs - 1) == 9, "written byte lost");

    /* Hinted allocations report their hints. */
    unsigned char *h = uvas_malloc_hint(3000, UVAS_HINT_HOST);
    unsigned char *g = uvas_malloc_hint(2 * bs, UVAS_HINT_DEVICE);
    unsigned char *al = uvas_aligned_alloc(8192, 64, UVAS_HINT_HOST);
    CHECK(h && g && al, "hinted allocations failed");
    CHECK_OK(uvas_query(h + 2999, &info));
    CHECK(info.alloc_base == h && info.alloc_size == 3000 &&
              info.alloc_hints == UVAS_HINT_HOST,
          "HOST allocation: base %p size %zu hints %u", info.alloc_base,
          info.alloc_size, info.alloc_hints);
    CHECK_OK(uvas_query(g + bs, &info));
    CHECK(info.alloc_base == g && info.alloc_size == 2 * bs &&
              info.alloc_hints == UVAS_HINT_DEVICE,
          "DEVICE allocation: base %p size %zu hints %u", info.alloc_base,
          info.alloc_size, info.alloc_hints);
    CHECK_OK(uvas_query(al, &info));
    CHECK(info.alloc_base == al && info.alloc_size == 64 &&
              info.alloc_hints == UVAS_HINT_HOST,
          "aligned allocation: base %p size %zu hints %u", info.alloc_base,
          info.alloc_size, info.alloc_hints);

    /* Freed: not owned any more. */
    CHECK_OK(uvas_try_free(p));
    CHECK_STATUS(uvas_query(p, &info), UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query(p + bs + 1, &info), UVAS_ERR_NOT_OWNED);
    CHECK_OK(uvas_try_free(h));
    CHECK_STATUS(uvas_query(h, &info), UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_query(h + 100, &info), UVAS_ERR_NOT_OWNED);
    CHECK_OK(uvas_try_free(g));
    CHECK_OK(uvas_try_free(al));
    CHECK_STATUS(uvas_query(al, &info), UVAS_ERR_NOT_OWNED);
    CHECK_OK(uvas_finalize());
    return 0;
}
