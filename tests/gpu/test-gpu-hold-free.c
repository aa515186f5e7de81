/*
 * Memory a hold of the program's keeps (uvas_gpu_hold, uvas_gpu_hold_range)
 * is not freed: uvas_free and uvas_realloc refuse it at once (naming
 * uvas_gpu_release), and every other allocation and free goes on. They
 * waited for the hold to end with the allocator's lock held: for ever from
 * the holding thread, and every other thread's allocation with it (found
 * by review). A small allocation held keeps only itself: freeing its
 * neighbour in the same block works. Released, it frees.
 */
#include "check.h"

int main(void)
{
    tu_deadline(40);
    struct uvas_range_desc d = tu_init_device("256M", "2M");
    size_t bs = d.block_size;
    char *p = uvas_malloc(2 * bs);
    CHECK(p != NULL, "uvas_malloc");
    memset(p, 1, 2 * bs);

    uvas_gpu_hold_t *h;
    CHECK_OK(uvas_gpu_hold(&(const void *){p}, 1, &h));
    tu_expect_refused(uvas_try_free(p), UVAS_ERR_INVAL, "uvas_gpu_release",
                      "freeing held memory");
    errno = 0;
    CHECK(uvas_realloc(p, 8 * bs) == NULL, "uvas_realloc of held memory did not fail");
    CHECK(strstr(uvas_last_error(), "uvas_gpu_release"), "uvas_realloc: '%s'", uvas_last_error());
    char *q = uvas_malloc(100); /* the allocator goes on */
    CHECK(q != NULL, "uvas_malloc beside a refused free");
    CHECK_OK(uvas_try_free(q));
    uvas_gpu_release(h);
    CHECK_OK(uvas_try_free(p));

    /* Part of an allocation, by range. */
    p = uvas_malloc(4 * bs);
    CHECK(p != NULL, "uvas_malloc");
    CHECK_OK(uvas_gpu_hold_range(p + 3 * bs, 64, &h));
    tu_expect_refused(uvas_try_free(p), UVAS_ERR_INVAL, "uvas_gpu_release",
                      "freeing memory held in part");
    uvas_gpu_release(h);
    CHECK_OK(uvas_try_free(p));

    /* Small allocations sharing a block: one held, its neighbour freed. */
    char *a = uvas_malloc(256), *b = uvas_malloc(256);
    CHECK(a && b, "small allocations");
    CHECK_OK(uvas_gpu_hold(&(const void *){a}, 1, &h));
    CHECK_OK(uvas_try_free(b));
    uvas_gpu_release(h);
    CHECK_OK(uvas_try_free(a));
    CHECK_OK(uvas_finalize());
    return 0;
}
