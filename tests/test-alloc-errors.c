/*
 * Bad allocation requests fail cleanly and change nothing (guarantee 5):
 * size 0 → NULL/EINVAL with a message; sizes larger than the range →
 * NULL/ENOMEM (also SIZE_MAX, no overflow); unknown hint bits or HOST|DEVICE
 * → NULL/EINVAL; aligned_alloc with alignment 0 or not a power of two →
 * NULL/EINVAL; calloc whose nmemb*size overflows → NULL/ENOMEM;
 * realloc(p, 0) → NULL/EINVAL with p intact; realloc(NULL, n) = malloc.
 */
#include "check.h"

static void same_accounting(const struct uvas_stats *a,
                            const struct uvas_stats *b, const char *what)
{
    for (int h = 0; h < UVAS_HEAP_COUNT; h++) {
        CHECK(a->heap[h].used_current == b->heap[h].used_current &&
                  a->heap[h].reserved_current == b->heap[h].reserved_current &&
                  a->heap[h].allocations == b->heap[h].allocations,
              "%s changed heap %d: used %zu->%zu reserved %zu->%zu "
              "allocations %zu->%zu", what, h, a->heap[h].used_current,
              b->heap[h].used_current, a->heap[h].reserved_current,
              b->heap[h].reserved_current, a->heap[h].allocations,
              b->heap[h].allocations);
    }
    for (int t = 0; t < UVAS_RES_COUNT; t++)
        CHECK(a->tier[t].blocks == b->tier[t].blocks &&
                  a->tier[t].bytes_current == b->tier[t].bytes_current,
              "%s changed tier %d", what, t);
}

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_init_env();
    struct uvas_range_desc d = tu_range();

    char *keep = uvas_malloc(300);
    CHECK(keep != NULL, "uvas_malloc(300) failed");
    memset(keep, 0x3c, 300);
    struct uvas_stats s0 = tu_stats();

    /* size 0 */
    CHECK_NULL_ERRNO(uvas_malloc(0), EINVAL);
    CHECK(uvas_last_error()[0] != '\0', "no message for uvas_malloc(0)");
    CHECK_NULL_ERRNO(uvas_malloc_hint(0, UVAS_HINT_HOST), EINVAL);
    CHECK_NULL_ERRNO(uvas_aligned_alloc(64, 0, 0), EINVAL);

    /* larger than the range */
    CHECK_NULL_ERRNO(uvas_malloc(d.size + 1), ENOMEM);
    CHECK(uvas_last_error()[0] != '\0', "no message for an oversized malloc");
    CHECK_NULL_ERRNO(uvas_malloc(2 * d.size), ENOMEM);
    CHECK_NULL_ERRNO(uvas_malloc(SIZE_MAX), ENOMEM);
    CHECK_NULL_ERRNO(uvas_malloc(SIZE_MAX - 4096), ENOMEM);
    CHECK_NULL_ERRNO(uvas_malloc(SIZE_MAX / 2 + 1), ENOMEM);
    CHECK_NULL_ERRNO(uvas_malloc_hint(SIZE_MAX, UVAS_HINT_DEVICE), ENOMEM);
    CHECK_NULL_ERRNO(uvas_aligned_alloc(4096, SIZE_MAX - 100, 0), ENOMEM);
    CHECK_NULL_ERRNO(uvas_aligned_alloc(64, d.size + 1, 0), ENOMEM);
    CHECK_NULL_ERRNO(uvas_calloc(1, d.size + 1), ENOMEM);

    /* bad hints */
    CHECK_NULL_ERRNO(uvas_malloc_hint(100, 0x80), EINVAL);
    CHECK(uvas_last_error()[0] != '\0', "no message for unknown hints");
    CHECK_NULL_ERRNO(uvas_malloc_hint(100, 0x4), EINVAL);
    CHECK_NULL_ERRNO(uvas_malloc_hint(100, 0x80000000u), EINVAL);
    CHECK_NULL_ERRNO(uvas_malloc_hint(100, UVAS_HINT_HOST | UVAS_HINT_DEVICE),
                     EINVAL);
    CHECK_NULL_ERRNO(uvas_malloc_hint(100000, UVAS_HINT_HOST | 0x10), EINVAL);
    CHECK_NULL_ERRNO(uvas_aligned_alloc(64, 100, 0x80), EINVAL);
    CHECK_NULL_ERRNO(
        uvas_aligned_alloc(64, 100, UVAS_HINT_HOST | UVAS_HINT_DEVICE), EINVAL);

    /* bad alignment */
    static const size_t bad_align[] = {0, 3, 24, 100, 4095, 65537,
                                       ((size_t)1 << 20) + 16};
    for (size_t i = 0; i < sizeof bad_align / sizeof bad_align[0]; i++) {
        errno = 0;
        void *p = uvas_aligned_alloc(bad_align[i], 128, 0);
        int e = errno;
        CHECK(p == NULL, "uvas_aligned_alloc(%zu, 128) returned %p",
              bad_align[i], p);
        CHECK(e == EINVAL, "uvas_aligned_alloc(%zu, 128): errno %d, expected "
              "EINVAL", bad_align[i], e);
    }

    /* calloc overflow */
    CHECK_NULL_ERRNO(uvas_calloc(SIZE_MAX / 2, 4), ENOMEM);
    CHECK_NULL_ERRNO(uvas_calloc(2, SIZE_MAX / 2 + 1), ENOMEM);
    CHECK_NULL_ERRNO(uvas_calloc((size_t)1 << 33, (size_t)1 << 33), ENOMEM);
    CHECK_NULL_ERRNO(uvas_calloc(SIZE_MAX, SIZE_MAX), ENOMEM);

    /* realloc to 0: error, p untouched */
    CHECK_NULL_ERRNO(uvas_realloc(keep, 0), EINVAL);
    CHECK(uvas_last_error()[0] != '\0', "no message for uvas_realloc(p, 0)");
    /* realloc to more than the range: error, p untouched */
    CHECK_NULL_ERRNO(uvas_realloc(keep, d.size + 1), ENOMEM);
    CHECK_NULL_ERRNO(uvas_realloc(keep, SIZE_MAX), ENOMEM);

    struct uvas_stats s1 = tu_stats();
    same_accounting(&s0, &s1, "failed allocation calls");

    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(keep, &info));
    CHECK(info.alloc_base == keep && info.alloc_size == 300,
          "allocation changed: base %p size %zu", info.alloc_base,
          info.alloc_size);
    long bad = tu_find_not(keep, 300, 0x3c);
    CHECK(bad < 0, "contents changed at offset %ld", bad);

    /* realloc(NULL, n) is malloc(n) */
    char *r = uvas_realloc(NULL, 5000);
    CHECK(r != NULL, "uvas_realloc(NULL, 5000) failed: errno %d", errno);
    CHECK(tu_in_range(&d, r, 5000), "%p outside the range", (void *)r);
    CHECK_OK(uvas_query(r, &info));
    CHECK(info.alloc_base == r && info.alloc_size == 5000 &&
              info.alloc_hints == 0,
          "realloc(NULL) allocation: base %p size %zu hints %u",
          info.alloc_base, info.alloc_size, info.alloc_hints);
    CHECK(tu_find_not(r, 5000, 0) < 0, "realloc(NULL) memory is not zero");
    CHECK_OK(uvas_try_free(r));

    /* The range is still fully usable after all that. */
    void *big = uvas_malloc(d.size / 2);
    CHECK(big != NULL, "uvas_malloc(size/2) failed after the errors: %s",
          uvas_last_error());
    CHECK_OK(uvas_try_free(big));
    CHECK_OK(uvas_try_free(keep));
    CHECK_OK(uvas_finalize());
    return 0;
}
