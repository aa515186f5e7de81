/*
 * Eager mode (UVAS_FAULT=eager): no interception; uvas_range reports
 * UVAS_FAULT_EAGER with 0 fault threads; a fresh allocation's blocks report
 * UVAS_RES_HOST at once (before any touch); the memory reads zero, holds
 * data, and read(2) into a fresh allocation works; stats.faults stays 0.
 */
#include "check.h"

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_FAULT", "eager");
    tu_init_env();
    struct uvas_range_desc d = tu_range();
    CHECK_EQ(d.fault_mode, UVAS_FAULT_EAGER, "fault_mode");
    CHECK_EQ(d.fault_threads, 0, "fault_threads");
    size_t bs = d.block_size;

    const size_t sizes[] = {24, bs / 8, bs + 1, 5 * bs};
    for (size_t i = 0; i < 4; i++) {
        size_t n = sizes[i];
        unsigned char *p = uvas_malloc(n);
        CHECK(p != NULL, "uvas_malloc(%zu)", n);
        struct uvas_range_info ri;
        CHECK_OK(uvas_query_range(p, n, &ri));
        size_t nblk = ((uintptr_t)(p + n - 1) / bs) - ((uintptr_t)p / bs) + 1;
        CHECK(ri.blocks[UVAS_RES_HOST] == nblk,
              "size %zu: %zu host blocks before touch, expected %zu", n,
              ri.blocks[UVAS_RES_HOST], nblk);
        CHECK_EQ(ri.blocks[UVAS_RES_UNPOPULATED], 0, "unpopulated blocks");
        CHECK_EQ(tu_residence(p), UVAS_RES_HOST, "residence before touch");
        CHECK(tu_find_not(p, n, 0) < 0, "size %zu: fresh memory not zero", n);
        memset(p, 0x6b, n);
        CHECK(tu_find_not(p, n, 0x6b) < 0, "size %zu: data lost", n);
        CHECK_OK(uvas_try_free(p));
    }

    /* read(2) from a pipe into a fresh allocation. */
    size_t len = 16384;
    unsigned char *q = uvas_malloc(len + bs);
    CHECK(q != NULL, "uvas_malloc");
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    unsigned char src[16384];
    for (size_t i = 0; i < len; i++)
        src[i] = (unsigned char)(i * 13 + 1);
    CHECK(write(fds[1], src, len) == (ssize_t)len, "pipe write");
    ssize_t r = read(fds[0], q + bs / 2, len);
    CHECK(r == (ssize_t)len, "read(2) into eager memory returned %zd (%s)", r,
          r < 0 ? strerror(errno) : "short");
    CHECK(memcmp(q + bs / 2, src, len) == 0, "read(2) data differs");
    close(fds[0]);
    close(fds[1]);
    CHECK_OK(uvas_try_free(q));

    struct uvas_stats st = tu_stats();
    CHECK(st.faults == 0, "eager mode handled %llu faults",
          (unsigned long long)st.faults);
    CHECK_OK(uvas_finalize());
    return 0;
}
