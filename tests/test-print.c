/*
 * uvas_residency_print writes one character per block ('.' unpopulated,
 * 'H' host) for [ptr, ptr+len); uvas_stats_print writes a non-empty
 * report. Both to an open_memstream FILE (uffd mode).
 */
#include "check.h"

static char *capture_residency(const void *p, size_t len, size_t *n)
{
    char *buf = NULL;
    size_t sz = 0;
    FILE *f = open_memstream(&buf, &sz);
    CHECK(f != NULL, "open_memstream: %s", strerror(errno));
    CHECK_OK(uvas_residency_print(f, p, len));
    CHECK(fclose(f) == 0, "fclose");
    *n = sz;
    return buf;
}

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;

    unsigned char *p = uvas_malloc(8 * bs);
    CHECK(p != NULL, "uvas_malloc");
    size_t n;
    char *out = capture_residency(p, 8 * bs, &n);
    CHECK(n > 0 && out != NULL, "uvas_residency_print wrote nothing");
    CHECK(strstr(out, "........") != NULL,
          "untouched map lacks \"........\": \"%s\"", out);
    CHECK(strstr(out, ".H") == NULL && strstr(out, "H.") == NULL,
          "untouched map shows a host block: \"%s\"", out);
    free(out);

    p[bs + 3] = 1;
    CHECK(tu_read_byte(p + 5 * bs) == 0, "not zero");
    out = capture_residency(p, 8 * bs, &n);
    CHECK(strstr(out, ".H...H..") != NULL,
          "map after touching blocks 1 and 5 lacks \".H...H..\": \"%s\"",
          out);
    free(out);

    /* A sub-span: blocks 1..3. */
    out = capture_residency(p + bs, 3 * bs, &n);
    CHECK(strstr(out, "H..") != NULL, "map of blocks 1..3 lacks \"H..\": "
          "\"%s\"", out);
    CHECK(strstr(out, "H...") == NULL,
          "map of 3 blocks has more than 3 block characters: \"%s\"", out);
    free(out);

    char *buf = NULL;
    size_t sz = 0;
    FILE *f = open_memstream(&buf, &sz);
    CHECK(f != NULL, "open_memstream");
    CHECK_OK(uvas_stats_print(f));
    CHECK(fclose(f) == 0, "fclose");
    CHECK(sz > 0 && buf && buf[0] != '\0', "uvas_stats_print wrote nothing");
    free(buf);

    /* tmpfile works as well. */
    FILE *t = tmpfile();
    CHECK(t != NULL, "tmpfile");
    CHECK_OK(uvas_residency_print(t, p, 2 * bs));
    CHECK_OK(uvas_stats_print(t));
    CHECK(ftell(t) > 0, "nothing written to the tmpfile");
    fclose(t);

    /* No stream: an error, not a crash. */
    CHECK_STATUS(uvas_stats_print(NULL), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_residency_print(NULL, p, bs), UVAS_ERR_INVAL);

    CHECK_OK(uvas_try_free(p));
    CHECK_OK(uvas_finalize());
    return 0;
}
