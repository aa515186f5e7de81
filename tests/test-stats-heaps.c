/*
 * Heap statistics: heap[UVAS_HEAP_UNIFIED].used_current is the sum of the
 * requested sizes of the live unhinted allocations and .allocations their
 * count; UVAS_HINT_HOST and UVAS_HINT_DEVICE allocations count in
 * heap[HOST] and heap[DEVICE]; realloc updates the size; used_high keeps
 * the peak after frees; uvas_stats_reset_watermarks() sets every high
 * watermark to its current value; reserved_current covers used_current.
 */
#include "check.h"

static void check_heap(const struct uvas_stats *s, int h, size_t used,
                       size_t count, const char *what)
{
    CHECK(s->heap[h].used_current == used,
          "%s: heap %d used_current %zu, expected %zu", what, h,
          s->heap[h].used_current, used);
    CHECK(s->heap[h].allocations == count,
          "%s: heap %d allocations %zu, expected %zu", what, h,
          s->heap[h].allocations, count);
    CHECK(s->heap[h].used_high >= s->heap[h].used_current,
          "%s: heap %d used_high %zu < used_current %zu", what, h,
          s->heap[h].used_high, s->heap[h].used_current);
    CHECK(s->heap[h].reserved_current >= s->heap[h].used_current,
          "%s: heap %d reserved_current %zu < used_current %zu", what, h,
          s->heap[h].reserved_current, s->heap[h].used_current);
    CHECK(s->heap[h].reserved_high >= s->heap[h].reserved_current,
          "%s: heap %d reserved_high %zu < reserved_current %zu", what, h,
          s->heap[h].reserved_high, s->heap[h].reserved_current);
}

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_init_env();
    size_t bs = tu_range().block_size;

    struct uvas_stats s = tu_stats();
    for (int h = 0; h < UVAS_HEAP_COUNT; h++)
        check_heap(&s, h, 0, 0, "at start");

    /* Unhinted: malloc, calloc, aligned (hints 0), realloc(NULL). */
    void *u1 = uvas_malloc(100);
    void *u2 = uvas_malloc(5000);
    void *u3 = uvas_malloc(3 * bs + 7);
    void *u4 = uvas_calloc(8, 8);
    void *u5 = uvas_aligned_alloc(4096, 640, 0);
    void *u6 = uvas_realloc(NULL, 33);
    void *u7 = uvas_malloc_hint(20, 0);
    CHECK(u1 && u2 && u3 && u4 && u5 && u6 && u7, "unhinted allocations");
    size_t unified = 100 + 5000 + 3 * bs + 7 + 64 + 640 + 33 + 20;
    /* Hinted. */
    void *h1 = uvas_malloc_hint(200, UVAS_HINT_HOST);
    void *h2 = uvas_malloc_hint(2 * bs, UVAS_HINT_HOST);
    void *h3 = uvas_aligned_alloc(256, 48, UVAS_HINT_HOST);
    void *d1 = uvas_malloc_hint(300, UVAS_HINT_DEVICE);
    void *d2 = uvas_malloc_hint(bs + 1, UVAS_HINT_DEVICE);
    CHECK(h1 && h2 && h3 && d1 && d2, "hinted allocations");
    size_t host = 200 + 2 * bs + 48, dev = 300 + bs + 1;

    s = tu_stats();
    check_heap(&s, UVAS_HEAP_UNIFIED, unified, 7, "after allocating");
    check_heap(&s, UVAS_HEAP_HOST, host, 3, "after allocating");
    check_heap(&s, UVAS_HEAP_DEVICE, dev, 2, "after allocating");
    CHECK(s.heap[UVAS_HEAP_UNIFIED].used_high == unified,
          "unified used_high %zu, expected the peak %zu",
          s.heap[UVAS_HEAP_UNIFIED].used_high, unified);
    /* Large allocations reserve whole blocks. */
    CHECK(s.heap[UVAS_HEAP_UNIFIED].reserved_current >= 4 * bs,
          "unified reserved_current %zu < the 4 blocks of a 3bs+7 allocation",
          s.heap[UVAS_HEAP_UNIFIED].reserved_current);

    /* realloc changes the requested size, keeps the heap. */
    u2 = uvas_realloc(u2, 9000);
    CHECK(u2 != NULL, "realloc");
    unified += 9000 - 5000;
    h1 = uvas_realloc(h1, 150);
    CHECK(h1 != NULL, "realloc");
    host -= 50;
    s = tu_stats();
    check_heap(&s, UVAS_HEAP_UNIFIED, unified, 7, "after realloc");
    check_heap(&s, UVAS_HEAP_HOST, host, 3, "after realloc");
    check_heap(&s, UVAS_HEAP_DEVICE, dev, 2, "after realloc");
    size_t peak_unified = unified;
    size_t peak_dev = dev;

    /* Free some: current drops, high stays. */
    CHECK_OK(uvas_try_free(u3));
    unified -= 3 * bs + 7;
    CHECK_OK(uvas_try_free(u1));
    unified -= 100;
    CHECK_OK(uvas_try_free(d2));
    dev -= bs + 1;
    s = tu_stats();
    check_heap(&s, UVAS_HEAP_UNIFIED, unified, 5, "after frees");
    check_heap(&s, UVAS_HEAP_DEVICE, dev, 1, "after frees");
    check_heap(&s, UVAS_HEAP_HOST, host, 3, "after frees");
    CHECK(s.heap[UVAS_HEAP_UNIFIED].used_high >= peak_unified,
          "unified used_high %zu fell below the peak %zu",
          s.heap[UVAS_HEAP_UNIFIED].used_high, peak_unified);
    CHECK(s.heap[UVAS_HEAP_DEVICE].used_high >= peak_dev,
          "device used_high %zu fell below the peak %zu",
          s.heap[UVAS_HEAP_DEVICE].used_high, peak_dev);

    /* Failed calls do not count. */
    CHECK(uvas_malloc(0) == NULL, "malloc(0)");
    CHECK(uvas_malloc_hint(10, 0x80) == NULL, "bad hint");
    int local;
    CHECK(uvas_try_free(&local) == UVAS_ERR_NOT_OWNED, "bad free");
    s = tu_stats();
    check_heap(&s, UVAS_HEAP_UNIFIED, unified, 5, "after failed calls");

    /* Reset: high == current for every heap and tier. */
    CHECK_OK(uvas_stats_reset_watermarks());
    s = tu_stats();
    for (int h = 0; h < UVAS_HEAP_COUNT; h++) {
        CHECK(s.heap[h].used_high == s.heap[h].used_current,
              "heap %d used_high %zu != used_current %zu after reset", h,
              s.heap[h].used_high, s.heap[h].used_current);
        CHECK(s.heap[h].reserved_high == s.heap[h].reserved_current,
              "heap %d reserved_high %zu != reserved_current %zu after reset",
              h, s.heap[h].reserved_high, s.heap[h].reserved_current);
    }
    for (int t = 0; t < UVAS_RES_COUNT; t++)
        CHECK(s.tier[t].bytes_high == s.tier[t].bytes_current,
              "tier %d bytes_high %zu != bytes_current %zu after reset", t,
              s.tier[t].bytes_high, s.tier[t].bytes_current);
    check_heap(&s, UVAS_HEAP_UNIFIED, unified, 5, "after reset");

    /* A new peak after the reset is tracked again. */
    void *big = uvas_malloc(10 * bs);
    CHECK(big != NULL, "malloc");
    CHECK_OK(uvas_try_free(big));
    s = tu_stats();
    CHECK_EQ(s.heap[UVAS_HEAP_UNIFIED].used_high, unified + 10 * bs,
             "unified used_high after a new peak");
    CHECK_EQ(s.heap[UVAS_HEAP_UNIFIED].used_current, unified,
             "unified used_current after the peak was freed");

    void *rest[] = {u2, u4, u5, u6, u7, h1, h2, h3, d1};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        CHECK_OK(uvas_try_free(rest[i]));
    s = tu_stats();
    for (int h = 0; h < UVAS_HEAP_COUNT; h++)
        check_heap(&s, h, 0, 0, "after freeing everything");
    CHECK_OK(uvas_finalize());
    return 0;
}
