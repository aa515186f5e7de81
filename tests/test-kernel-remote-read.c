/*
 * Another process reads untouched blocks (guarantee 4, uffd mode): a helper
 * process, forked before uvas_init, reads this process's memory with
 * process_vm_readv. Reading an untouched block succeeds (all bytes) and
 * gives zeros; data written before by the owner in another block reads
 * back exactly; a span covering written and untouched blocks too.
 */
#include "remote.h"

#define LEN 65536

static unsigned char got[4 * LEN];

int main(void)
{
    tu_deadline(40);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    struct remote rh = remote_start(35);

    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;

    /* Untouched: 3 blocks' worth (at least LEN), starting mid-block. */
    size_t span = LEN > 3 * bs ? LEN : 3 * bs;
    if (span > 4 * LEN)
        span = 4 * LEN;
    unsigned char *u = uvas_malloc(span + 2 * bs);
    CHECK(u != NULL, "uvas_malloc");
    unsigned char *ut = u + bs / 2;
    struct remote_rep rep = remote_read(&rh, ut, span, got);
    CHECK(rep.ret == (int64_t)span,
          "process_vm_readv of untouched blocks returned %lld (%s), expected "
          "%zu", (long long)rep.ret, rep.ret < 0 ? strerror(rep.err) : "short",
          span);
    CHECK(tu_find_not(got, span, 0) < 0,
          "untouched memory read remotely is not zero");

    /* Written by the owner, in other blocks. */
    unsigned char *w = uvas_malloc(2 * bs);
    CHECK(w != NULL, "uvas_malloc");
    size_t wl = 2 * bs < 4 * LEN ? 2 * bs : 4 * LEN;
    for (size_t i = 0; i < wl; i++)
        w[i] = (unsigned char)(i * 3 + 11);
    rep = remote_read(&rh, w, wl, got);
    CHECK(rep.ret == (int64_t)wl, "process_vm_readv of written blocks "
          "returned %lld (%s)", (long long)rep.ret,
          rep.ret < 0 ? strerror(rep.err) : "short");
    for (size_t i = 0; i < wl; i++)
        CHECK(got[i] == (unsigned char)(i * 3 + 11),
              "remote read of written data: byte %zu is 0x%02x", i, got[i]);

    /* Mixed: first block written, the next one untouched. */
    unsigned char *m = uvas_malloc(2 * bs);
    CHECK(m != NULL, "uvas_malloc");
    memset(m, 0x99, bs);
    size_t h = bs / 2 < 2 * LEN ? bs / 2 : 2 * LEN;
    rep = remote_read(&rh, m + bs - h, 2 * h, got);
    CHECK(rep.ret == (int64_t)(2 * h), "process_vm_readv across written/"
          "untouched returned %lld (%s)", (long long)rep.ret,
          rep.ret < 0 ? strerror(rep.err) : "short");
    CHECK(tu_find_not(got, h, 0x99) < 0, "written half differs");
    CHECK(tu_find_not(got + h, h, 0) < 0, "untouched half not zero");

    /* The owner still sees zeros in the remotely read blocks, and can
     * write them. */
    CHECK(tu_find_not(ut, span, 0) < 0, "owner sees non-zero after the "
          "remote read");
    memset(ut, 0x21, span);
    rep = remote_read(&rh, ut, span, got);
    CHECK(rep.ret == (int64_t)span, "second remote read");
    CHECK(tu_find_not(got, span, 0x21) < 0, "remote read after owner wrote");

    remote_stop(&rh);
    CHECK_OK(uvas_try_free(u));
    CHECK_OK(uvas_try_free(w));
    CHECK_OK(uvas_try_free(m));
    CHECK_OK(uvas_finalize());
    return 0;
}
