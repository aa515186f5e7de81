/*
 * Bad frees are reported and change nothing (guarantee 5):
 * uvas_try_free(NULL) → 0; a pointer outside the range (stack, libc heap)
 * → UVAS_ERR_NOT_OWNED; inside the range but in no live allocation →
 * UVAS_ERR_NOT_OWNED; an interior pointer of a live allocation →
 * UVAS_ERR_INVAL; a second free right after the first →
 * UVAS_ERR_DOUBLE_FREE. After each failure the statistics are identical and
 * the allocation is still usable. uvas_free() of a bad pointer prints a
 * diagnostic on stderr and sets uvas_last_error, without crashing.
 */
#include "check.h"

static void same_stats(const struct uvas_stats *a, const struct uvas_stats *b,
                       const char *what)
{
    for (int h = 0; h < UVAS_HEAP_COUNT; h++)
        CHECK(a->heap[h].used_current == b->heap[h].used_current &&
                  a->heap[h].used_high == b->heap[h].used_high &&
                  a->heap[h].reserved_current == b->heap[h].reserved_current &&
                  a->heap[h].reserved_high == b->heap[h].reserved_high &&
                  a->heap[h].allocations == b->heap[h].allocations,
              "%s changed heap %d stats: used %zu->%zu allocations %zu->%zu "
              "reserved %zu->%zu", what, h, a->heap[h].used_current,
              b->heap[h].used_current, a->heap[h].allocations,
              b->heap[h].allocations, a->heap[h].reserved_current,
              b->heap[h].reserved_current);
    for (int t = 0; t < UVAS_RES_COUNT; t++)
        CHECK(a->tier[t].blocks == b->tier[t].blocks &&
                  a->tier[t].bytes_current == b->tier[t].bytes_current &&
                  a->tier[t].blocks_populated == b->tier[t].blocks_populated,
              "%s changed tier %d stats", what, t);
    CHECK(a->blocks_released == b->blocks_released,
          "%s changed blocks_released %llu -> %llu", what,
          (unsigned long long)a->blocks_released,
          (unsigned long long)b->blocks_released);
}

static void still_usable(char *p, size_t n, unsigned char v, const char *what)
{
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(p, &info));
    CHECK(info.alloc_base == p && info.alloc_size == n,
          "%s: allocation now base %p size %zu (expected %p, %zu)", what,
          info.alloc_base, info.alloc_size, (void *)p, n);
    long bad = tu_find_not(p, n, v);
    CHECK(bad < 0, "%s: contents changed at offset %ld", what, bad);
    memset(p, v, n);
}

/* Run uvas_free(p) with stderr captured; return what it printed. */
static size_t free_capturing_stderr(void *p, char *buf, size_t cap)
{
    fflush(stderr);
    FILE *tmp = tmpfile();
    CHECK(tmp != NULL, "tmpfile: %s", strerror(errno));
    int saved = dup(2);
    CHECK(saved >= 0, "dup: %s", strerror(errno));
    CHECK(dup2(fileno(tmp), 2) == 2, "dup2: %s", strerror(errno));
    uvas_free(p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, cap - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return n;
}

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_init_env();
    struct uvas_range_desc d = tu_range();
    size_t bs = d.block_size;

    size_t small_n = 48, big_n = 3 * bs + 100;
    char *small = uvas_malloc(small_n);
    char *big = uvas_malloc(big_n);
    char *hinted = uvas_malloc_hint(5000, UVAS_HINT_DEVICE);
    CHECK(small && big && hinted, "setup allocations failed");
    memset(small, 0x11, small_n);
    memset(big, 0x22, big_n);
    memset(hinted, 0x33, 5000);

    CHECK_OK(uvas_try_free(NULL));
    uvas_free(NULL);

    struct uvas_stats s0 = tu_stats();

    int on_stack = 5;
    CHECK_STATUS(uvas_try_free(&on_stack), UVAS_ERR_NOT_OWNED);
    char *libc = malloc(64);
    CHECK(libc != NULL, "malloc");
    CHECK_STATUS(uvas_try_free(libc), UVAS_ERR_NOT_OWNED);
    free(libc);
    CHECK_STATUS(uvas_try_free((char *)d.base - 4096), UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_try_free((char *)d.base + d.size), UVAS_ERR_NOT_OWNED);
    CHECK_STATUS(uvas_try_free((void *)(uintptr_t)16), UVAS_ERR_NOT_OWNED);

    /* Inside the range, in no allocation (candidates that hit one of the
     * three live allocations are left out). */
    char *far = NULL;
    char *cand[] = {(char *)d.base + d.size - bs, (char *)d.base + d.size / 2,
                    (char *)d.base + d.size - 16, (char *)d.base + d.size / 3,
                    (char *)d.base + d.size / 4 + 64, big + 4 * bs,
                    big + big_n + 2 * bs,
                    big + big_n,       /* past the end, in big's last block */
                    small + small_n};  /* past the end of a small one */
    const char *owner[3] = {small, big, hinted};
    size_t owner_n[3] = {small_n, big_n, 5000};
    int tried = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        int hit = !tu_in_range(&d, cand[i], 1);
        for (int k = 0; k < 3; k++)
            if (cand[i] >= owner[k] && cand[i] < owner[k] + owner_n[k])
                hit = 1;
        if (hit)
            continue;
        int st = uvas_try_free(cand[i]);
        CHECK(st == UVAS_ERR_NOT_OWNED,
              "uvas_try_free(%p), inside the range in no allocation, returned "
              "%d (%s), expected UVAS_ERR_NOT_OWNED", (void *)cand[i], st,
              uvas_strerror(st));
        if (!far)
            far = cand[i];
        tried++;
    }
    CHECK(tried >= 5, "only %d unallocated probe addresses", tried);

    /* Interior pointers. */
    CHECK_STATUS(uvas_try_free(small + 16), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_try_free(small + 1), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_try_free(small + small_n - 1), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_try_free(big + 16), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_try_free(big + bs), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_try_free(big + big_n - 1), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_try_free(hinted + 4096), UVAS_ERR_INVAL);

    struct uvas_stats s1 = tu_stats();
    same_stats(&s0, &s1, "failed uvas_try_free calls");
    still_usable(small, small_n, 0x11, "small");
    still_usable(big, big_n, 0x22, "big");
    still_usable(hinted, 5000, 0x33, "hinted");

    /* uvas_free of bad pointers: a diagnostic, a message, no crash. */
    char out[4096];
    size_t printed = free_capturing_stderr(&on_stack, out, sizeof out);
    CHECK(printed > 0, "uvas_free(stack pointer) printed nothing on stderr");
    CHECK(uvas_last_error()[0] != '\0',
          "uvas_free(stack pointer) set no last error");
    printed = free_capturing_stderr(big + 8, out, sizeof out);
    CHECK(printed > 0, "uvas_free(interior pointer) printed nothing");
    printed = free_capturing_stderr(far, out, sizeof out);
    CHECK(printed > 0, "uvas_free(unallocated range pointer) printed nothing");
    struct uvas_stats s2 = tu_stats();
    same_stats(&s0, &s2, "failed uvas_free calls");
    still_usable(big, big_n, 0x22, "big after uvas_free(big + 8)");

    /* Double frees, right after the first free: small, big, hinted. */
    char *x[3] = {small, big, hinted};
    const char *xn[3] = {"small", "big", "hinted"};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(uvas_try_free(x[i]));
        struct uvas_stats a = tu_stats();
        int st = uvas_try_free(x[i]);
        CHECK(st == UVAS_ERR_DOUBLE_FREE,
              "second free of the %s allocation returned %d (%s), expected "
              "UVAS_ERR_DOUBLE_FREE", xn[i], st, uvas_strerror(st));
        CHECK(uvas_last_error()[0] != '\0', "no message for a double free");
        struct uvas_stats b = tu_stats();
        same_stats(&a, &b, "a double free");
    }

    /* uvas_free of a double free: diagnostic, no crash. */
    char *y = uvas_malloc(200);
    CHECK(y != NULL, "malloc");
    uvas_free(y);
    struct uvas_stats a = tu_stats();
    printed = free_capturing_stderr(y, out, sizeof out);
    CHECK(printed > 0, "uvas_free(double free) printed nothing");
    struct uvas_stats b = tu_stats();
    same_stats(&a, &b, "uvas_free of a freed pointer");

    /* The allocator still works and gives zeroed fresh memory. */
    char *z = uvas_calloc(1, 3 * bs);
    CHECK(z != NULL, "calloc after the bad frees failed");
    CHECK(tu_find_not(z, 3 * bs, 0) < 0, "calloc memory not zero");
    CHECK_OK(uvas_try_free(z));
    CHECK_OK(uvas_finalize());
    return 0;
}
