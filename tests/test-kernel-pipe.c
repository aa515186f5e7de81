/*
 * Kernel accesses to untouched blocks (guarantee 4, uffd mode): read(2)
 * from a pipe into an untouched block succeeds with all bytes (one call,
 * no EFAULT, no short count) and the data lands; write(2) to a pipe from an
 * untouched block succeeds and the reader gets zeros; after each, the
 * blocks involved report UVAS_RES_HOST. Spans that cross a block boundary,
 * and readv/writev with several untouched buffers, too.
 */
#include <sys/uio.h>

#include "check.h"

#define LEN 16384

static unsigned char src[LEN], dst[LEN];

static void check_host(const unsigned char *p, size_t len, size_t bs,
                       const char *what)
{
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(p, len, &ri));
    size_t nblk = ((uintptr_t)(p + len - 1) / bs) - ((uintptr_t)p / bs) + 1;
    CHECK(ri.blocks[UVAS_RES_HOST] == nblk,
          "%s: %zu of %zu blocks host, %zu unpopulated", what,
          ri.blocks[UVAS_RES_HOST], nblk, ri.blocks[UVAS_RES_UNPOPULATED]);
}

static void check_unpopulated(const unsigned char *p, size_t len,
                              const char *what)
{
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(p, len, &ri));
    CHECK(ri.blocks[UVAS_RES_HOST] == 0 && ri.blocks[UVAS_RES_DEVICE] == 0,
          "%s: blocks already populated before the syscall", what);
}

static void run(size_t block_size)
{
    struct uvas_options o = {0};
    o.size = (size_t)256 << 20;
    o.block_size = block_size;
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;
    size_t off = bs > 8192 ? bs - 8192 : 100; /* crosses a boundary */
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
    for (size_t i = 0; i < LEN; i++)
        src[i] = (unsigned char)(i * 31 + 7);

    /* read(2) into untouched memory. */
    unsigned char *a = uvas_malloc(4 * bs + LEN);
    CHECK(a != NULL, "uvas_malloc");
    check_unpopulated(a + off, LEN, "read target");
    CHECK(write(fds[1], src, LEN) == LEN, "pipe write");
    ssize_t r = read(fds[0], a + off, LEN);
    CHECK(r == LEN, "bs %zu: read(2) into an untouched block returned %zd "
          "(%s), expected %d", bs, r, r < 0 ? strerror(errno) : "short", LEN);
    check_host(a + off, LEN, bs, "after read(2)");
    CHECK(memcmp(a + off, src, LEN) == 0, "read(2) data differs");
    CHECK(tu_find_not(a, off, 0) < 0, "bytes before the read target not zero");

    /* write(2) from untouched memory: the reader gets zeros. */
    unsigned char *b = uvas_malloc(4 * bs + LEN);
    CHECK(b != NULL, "uvas_malloc");
    check_unpopulated(b + off, LEN, "write source");
    ssize_t w = write(fds[1], b + off, LEN);
    CHECK(w == LEN, "bs %zu: write(2) from an untouched block returned %zd "
          "(%s), expected %d", bs, w, w < 0 ? strerror(errno) : "short", LEN);
    memset(dst, 0xff, LEN);
    CHECK(tu_read_all(fds[0], dst, LEN) == 0, "pipe read");
    CHECK(tu_find_not(dst, LEN, 0) < 0, "write(2) from untouched memory sent "
          "non-zero bytes");
    check_host(b + off, LEN, bs, "after write(2)");

    /* readv/writev over several untouched buffers in different blocks. */
    unsigned char *c = uvas_malloc(6 * bs);
    CHECK(c != NULL, "uvas_malloc");
    size_t piece = LEN / 4 < bs ? LEN / 4 : bs;
    struct iovec iov[4];
    for (int i = 0; i < 4; i++) {
        iov[i].iov_base = c + (size_t)i * bs + (i % 2 ? bs - piece : 0);
        iov[i].iov_len = piece;
    }
    CHECK(write(fds[1], src, 4 * piece) == (ssize_t)(4 * piece), "pipe write");
    r = readv(fds[0], iov, 4);
    CHECK(r == (ssize_t)(4 * piece), "readv into untouched blocks returned "
          "%zd (%s)", r, r < 0 ? strerror(errno) : "short");
    for (int i = 0; i < 4; i++) {
        CHECK(memcmp(iov[i].iov_base, src + (size_t)i * piece, piece) == 0,
              "readv piece %d differs", i);
        CHECK_EQ(tu_residence(iov[i].iov_base), UVAS_RES_HOST,
                 "readv target block");
    }
    unsigned char *e = uvas_malloc(6 * bs);
    CHECK(e != NULL, "uvas_malloc");
    for (int i = 0; i < 4; i++)
        iov[i].iov_base = e + (size_t)i * bs + (i % 2 ? bs - piece : 0);
    w = writev(fds[1], iov, 4);
    CHECK(w == (ssize_t)(4 * piece), "writev from untouched blocks returned "
          "%zd (%s)", w, w < 0 ? strerror(errno) : "short");
    memset(dst, 0xff, LEN);
    CHECK(tu_read_all(fds[0], dst, 4 * piece) == 0, "pipe read");
    CHECK(tu_find_not(dst, 4 * piece, 0) < 0, "writev sent non-zero bytes");
    for (int i = 0; i < 4; i++)
        CHECK_EQ(tu_residence(iov[i].iov_base), UVAS_RES_HOST,
                 "writev source block");

    close(fds[0]);
    close(fds[1]);
    CHECK_OK(uvas_try_free(a));
    CHECK_OK(uvas_try_free(b));
    CHECK_OK(uvas_try_free(c));
    CHECK_OK(uvas_try_free(e));
    CHECK_OK(uvas_finalize());
}

int main(void)
{
    tu_deadline(50);
    tu_clear_env();
    run(0);
    run(4096);
    run((size_t)2 << 20);
    return 0;
}
