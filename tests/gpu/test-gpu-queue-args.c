/*
 * A queue refuses bad arguments at once (uvas_queue.h: "bad arguments: at
 * once"), not at its next sync, and never runs them: a copy whose uvas
 * side runs past its allocation (it overwrote the next allocation, found
 * by review), a migration of 0 bytes or past its allocation, a launch with
 * a group count of 0, arguments that are no multiple of 4 or past the
 * device's limit, or unknown flags. Work enqueued after a refusal runs,
 * and the sync reports no error for what was refused.
 */
#include "check.h"
#include "uvas_queue.h"

struct args {
    uint64_t x;
    uint32_t n, by;
};

int main(void)
{
    tu_deadline(60);
    tu_init_device("256M", "64K");
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));

    char *a = uvas_malloc(64), *b = uvas_malloc(64);
    CHECK(a && b, "uvas_malloc");
    memset(a, 'A', 64);
    memset(b, 'B', 64);
    char src[128], dst[128];
    memset(src, 'X', sizeof src);
    tu_expect_refused(uvas_queue_copy(q, a, src, 128), UVAS_ERR_INVAL, "runs past",
                      "a copy into uvas memory past its allocation");
    tu_expect_refused(uvas_queue_copy(q, dst, a, 128), UVAS_ERR_INVAL, "runs past",
                      "a copy out of uvas memory past its allocation");
    CHECK_OK(uvas_queue_copy(q, a, src, 64));     /* exactly the allocation */
    CHECK_OK(uvas_queue_copy(q, dst, src, 128));  /* the program's own memory */

    size_t len = 1 << 20;
    char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    memset(p, 1, len);
    tu_expect_refused(uvas_queue_migrate(q, p, 0, UVAS_LOC_DEVICE), UVAS_ERR_INVAL, "len 0",
                      "a migration of 0 bytes");
    tu_expect_refused(uvas_queue_migrate(q, p, len + 1, UVAS_LOC_DEVICE), UVAS_ERR_INVAL,
                      "runs past", "a migration past its allocation");
    tu_expect_refused(uvas_queue_migrate(q, p, SIZE_MAX, UVAS_LOC_DEVICE), UVAS_ERR_INVAL,
                      "runs past", "a migration of SIZE_MAX bytes");
    CHECK_OK(uvas_queue_migrate(q, p, len, UVAS_LOC_DEVICE));

    uvas_kernel_t *k = tu_kernel("inc");
    uint32_t *x = uvas_malloc(64 * sizeof *x);
    CHECK(x != NULL, "uvas_malloc");
    memset(x, 0, 64 * sizeof *x);
    struct args ar = {(uintptr_t)x, 64, 1};
    tu_expect_refused(uvas_queue_launch(q, k, (uint32_t[3]){0, 1, 1}, &ar, sizeof ar, 0),
                      UVAS_ERR_INVAL, "groups[0]", "a launch of 0 groups");
    tu_expect_refused(uvas_queue_launch(q, k, (uint32_t[3]){1, 1, 1}, &ar, 3, 0),
                      UVAS_ERR_INVAL, "multiple of 4", "3 bytes of arguments");
    tu_expect_refused(uvas_queue_launch(q, k, (uint32_t[3]){1, 1, 1}, &ar, sizeof ar, 0x80),
                      UVAS_ERR_INVAL, "unknown flags", "unknown flags");
    static char big[1 << 16];
    tu_expect_refused(uvas_queue_launch(q, k, (uint32_t[3]){1, 1, 1}, big, sizeof big, 0),
                      UVAS_ERR_INVAL, "push-constant", "64 KiB of arguments");
    CHECK_OK(uvas_queue_launch(q, k, (uint32_t[3]){1, 1, 1}, &ar, sizeof ar, 0));

    CHECK_OK(uvas_queue_sync(q));
    CHECK(memcmp(b, "BBBBBBBB", 8) == 0, "the neighbour of a refused copy changed: %.8s", b);
    CHECK(a[0] == 'X' && a[63] == 'X', "the valid copy did not land");
    CHECK_EQ(tu_residence(p), UVAS_RES_DEVICE, "the valid migration after refused ones");
    for (int i = 0; i < 64; i++)
        CHECK_EQ(x[i], 1, "the valid launch after refused ones");
    CHECK_OK(uvas_queue_destroy(q));
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
