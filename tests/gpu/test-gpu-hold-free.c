/*
 * Memory a hold of the program's keeps (uvas_gpu_hold, uvas_gpu_hold_range)
 * is not freed: uvas_free and uvas_realloc refuse it at once (naming
 * uvas_gpu_release), and every other allocation and free goes on. They
 * waited for the hold to end with the allocator's lock held: for ever from
 * the holding thread, and every other thread's allocation with it (found
 * by review). A small allocation held keeps only itself: freeing its
 * neighbour in the same block works. Released, it frees.
 *
 * Found by the next review: the small allocation held was itself freed
 * (and handed out again while held) or moved by realloc, whose copy then
 * waited for the hold; uvas_free_async took held memory, whose free at
 * its point then failed and lost the block; and a block's holders were
 * counted to 15: a 16th hold (16 small allocations of one slab block
 * held apart) or a launch over it waited for ever. A block counts 255
 * holders now, and one more is refused at once, saying why.
 */
#include "check.h"
#include "uvas_queue.h"

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
    /* ... and the held one itself is not freed, nor moved. */
    tu_expect_refused(uvas_try_free(a), UVAS_ERR_INVAL, "uvas_gpu_release",
                      "freeing a held small allocation");
    char *c = uvas_malloc(256);
    CHECK(c != NULL && c != a, "uvas_malloc handed out the held allocation %p again", (void *)a);
    errno = 0;
    CHECK(uvas_realloc(a, 100000) == NULL, "uvas_realloc of a held small allocation did not fail");
    CHECK(strstr(uvas_last_error(), "uvas_gpu_release"), "uvas_realloc: '%s'", uvas_last_error());
    uvas_gpu_release(h);
    CHECK_OK(uvas_try_free(a));
    CHECK_OK(uvas_try_free(c));

    /* Held memory of a pool is not given back at a queue's point either. */
    uvas_queue_t *aq;
    CHECK_OK(uvas_queue_create(&aq));
    char *e = uvas_malloc_async(4096, aq);
    CHECK(e != NULL, "uvas_malloc_async");
    CHECK_OK(uvas_queue_sync(aq));
    CHECK_OK(uvas_gpu_hold(&(const void *){e}, 1, &h));
    tu_expect_refused(uvas_free_async(e, aq), UVAS_ERR_INVAL, "uvas_gpu_release",
                      "uvas_free_async of held memory");
    uvas_gpu_release(h);
    CHECK_OK(uvas_free_async(e, aq));
    CHECK_OK(uvas_queue_sync(aq));
    uvas_queue_destroy(aq);

    /* Many small allocations of one slab block, each held apart. */
    enum { NSMALL = 300, COUNTED = 255 };
    static char *small[NSMALL];
    static uvas_gpu_hold_t *hs[NSMALL];
    for (int i = 0; i < NSMALL; i++) {
        small[i] = uvas_malloc(256);
        CHECK(small[i] != NULL, "uvas_malloc %d", i);
    }
    char *first = small[0];
    int held = 0;
    double t0 = tu_now_s();
    for (int i = 0; i < NSMALL; i++) {
        if ((uintptr_t)small[i] / bs != (uintptr_t)first / bs)
            continue;
        int rc = uvas_gpu_hold(&(const void *){small[i]}, 1, &hs[i]);
        if (held < COUNTED) {
            CHECK_OK(rc);
            held++;
            continue;
        }
        tu_expect_refused(rc, UVAS_ERR_NOMEM, "holders already", "a hold past the count");
        CHECK(hs[i] == NULL, "a refused hold gave a handle");
        /* A launch over the block: refused too, not waited. */
        uvas_kernel_t *k = tu_kernel("inc");
        struct {
            uint64_t x;
            uint32_t n, by;
        } args = {(uintptr_t)small[i], 1, 1};
        tu_expect_refused(uvas_kernel_launch(k, (uint32_t[3]){1, 1, 1}, &args, sizeof args, 0),
                          UVAS_ERR_NOMEM, "holders already", "a launch past the count");
        /* One let go: room for one more. */
        for (int j = 0; j < i; j++)
            if (hs[j]) {
                uvas_gpu_release(hs[j]);
                hs[j] = NULL;
                break;
            }
        CHECK_OK(uvas_gpu_hold(&(const void *){small[i]}, 1, &hs[i]));
        uvas_kernel_free(k);
        break;
    }
    CHECK(held == COUNTED, "only %d allocations of 256 bytes shared the first's block", held);
    CHECK(tu_now_s() - t0 < 20, "the holds took %.1f s", tu_now_s() - t0);
    for (int i = 0; i < NSMALL; i++) {
        uvas_gpu_release(hs[i]);
        CHECK_OK(uvas_try_free(small[i]));
    }
    CHECK_OK(uvas_finalize());
    return 0;
}
