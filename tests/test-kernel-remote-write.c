/*
 * Another process writes untouched blocks (guarantee 4, uffd mode): a
 * helper process, forked before uvas_init, writes into this process's
 * memory with process_vm_writev. Writing into untouched blocks succeeds
 * (all bytes), the owner then reads exactly that data, the bytes around it
 * read zero, and the blocks report UVAS_RES_HOST.
 */
#include "remote.h"

int main(void)
{
    tu_deadline(40);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    struct remote rh = remote_start(35);

    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    size_t bs = d.block_size;

    size_t span = 3 * bs < 262144 ? 3 * bs : 262144;
    unsigned char *u = uvas_malloc(span + 2 * bs);
    CHECK(u != NULL, "uvas_malloc");
    unsigned char *t = u + bs / 2;
    struct remote_rep rep = remote_write(&rh, t, span, 0x3e);
    CHECK(rep.ret == (int64_t)span,
          "process_vm_writev into untouched blocks returned %lld (%s), "
          "expected %zu", (long long)rep.ret,
          rep.ret < 0 ? strerror(rep.err) : "short", span);
    CHECK(tu_find_not(t, span, 0x3e) < 0, "remotely written data differs");
    CHECK(tu_find_not(u, bs / 2, 0) < 0, "bytes before the target not zero");
    CHECK(tu_find_not(t + span, bs, 0) < 0, "bytes after the target not zero");
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(t, span, &ri));
    CHECK(ri.blocks[UVAS_RES_UNPOPULATED] == 0,
          "%zu blocks unpopulated after a remote write",
          ri.blocks[UVAS_RES_UNPOPULATED]);

    remote_stop(&rh);
    CHECK_OK(uvas_try_free(u));
    CHECK_OK(uvas_finalize());
    return 0;
}
