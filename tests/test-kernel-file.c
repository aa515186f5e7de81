/*
 * Kernel accesses to untouched blocks through a regular file (guarantee 4,
 * uffd mode): pread(2) into an untouched block returns every byte; pwrite(2)
 * from an untouched block writes zeros to the file; both populate the
 * blocks (UVAS_RES_HOST). A span of several blocks, default and 4K blocks.
 */
#include <fcntl.h>

#include "check.h"

#define LEN (256 * 1024)

static unsigned char src[LEN], back[LEN];

static void run(size_t block_size)
{
    struct uvas_options o = {0};
    o.size = (size_t)256 << 20;
    o.block_size = block_size;
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;

    FILE *f = tmpfile();
    CHECK(f != NULL, "tmpfile: %s", strerror(errno));
    int fd = fileno(f);
    for (size_t i = 0; i < LEN; i++)
        src[i] = (unsigned char)(i ^ (i >> 8) ^ 0x5a);
    CHECK(pwrite(fd, src, LEN, 0) == LEN, "pwrite setup");

    unsigned char *a = uvas_malloc(LEN + 2 * bs);
    CHECK(a != NULL, "uvas_malloc");
    unsigned char *t = a + bs / 2 + 16;
    ssize_t r = pread(fd, t, LEN, 0);
    CHECK(r == LEN, "bs %zu: pread(2) into untouched blocks returned %zd (%s)",
          bs, r, r < 0 ? strerror(errno) : "short");
    CHECK(memcmp(t, src, LEN) == 0, "pread(2) data differs");
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(t, LEN, &ri));
    CHECK(ri.blocks[UVAS_RES_UNPOPULATED] == 0,
          "%zu blocks still unpopulated after pread(2)",
          ri.blocks[UVAS_RES_UNPOPULATED]);

    unsigned char *b = uvas_malloc(LEN + 2 * bs);
    CHECK(b != NULL, "uvas_malloc");
    t = b + bs / 2 + 16;
    ssize_t w = pwrite(fd, t, LEN, LEN);
    CHECK(w == LEN, "bs %zu: pwrite(2) from untouched blocks returned %zd (%s)",
          bs, w, w < 0 ? strerror(errno) : "short");
    memset(back, 0xff, LEN);
    CHECK(pread(fd, back, LEN, LEN) == LEN, "pread back");
    CHECK(tu_find_not(back, LEN, 0) < 0, "pwrite(2) of untouched memory wrote "
          "non-zero bytes");
    CHECK_OK(uvas_query_range(t, LEN, &ri));
    CHECK(ri.blocks[UVAS_RES_UNPOPULATED] == 0,
          "%zu blocks still unpopulated after pwrite(2)",
          ri.blocks[UVAS_RES_UNPOPULATED]);
    fclose(f);
    CHECK_OK(uvas_try_free(a));
    CHECK_OK(uvas_try_free(b));
    CHECK_OK(uvas_finalize());
}

int main(void)
{
    tu_deadline(50);
    tu_clear_env();
    run(0);
    run(4096);
    return 0;
}
