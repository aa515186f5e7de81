/*
 * UVAS_INJECT=uffd:1: the first userfaultfd ioctl fails. The call sites
 * live in fault/ (uvas/inject.h: UVAS_INJ_UFFD); until they exist this
 * test skips. Whatever ioctl comes first (at init or at a first touch),
 * the process keeps working: uvas_init fails with a message or succeeds;
 * a retry works; memory written afterwards is intact; injected[uffd] is
 * 1. A first touch whose ioctl fails may end the faulting thread with
 * SIGBUS (as shmem does), so the touches run in a child process.
 */
#include "inject-util.h"

static int child(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_setenv("UVAS_INJECT", "uffd:1");
    int st = uvas_init(NULL);
    if (st) {
        printf("  uvas_init with the first uffd ioctl failing: %s: %s\n", uvas_strerror(st),
               uvas_last_error());
        if (!*uvas_last_error())
            return 1;
        if ((st = uvas_init(NULL))) /* the retry is call 2 */
            return 1;
    }
    if (uvas_inject_calls(UVAS_INJ_UFFD) == 0) {
        /* Nothing at init: a first touch makes the first call. */
        ti_catch_sigbus();
        unsigned char *t = uvas_malloc(4096);
        if (!t)
            return 1;
        t[0] = 1;
        if (uvas_inject_calls(UVAS_INJ_UFFD) == 0)
            return TU_EXIT_SKIP;
    }
    struct uvas_range_desc d = tu_range();
    size_t len = 8 * d.block_size;
    unsigned char *p = uvas_malloc(len);
    if (!p)
        return 1;
    ti_fill(p, len, 17);
    ti_verify(p, len, 17, d.block_size, "data written after the injected failure");
    CHECK_EQ(tu_stats().injected[UVAS_INJ_UFFD], 1, "injected[uffd]");
    CHECK_OK(uvas_finalize());
    return 0;
}

int main(void)
{
    tu_deadline(60);
    int cs = tu_run_child(child, NULL, 50);
    if (cs == TU_EXIT_SKIP)
        SKIP("fault/ has no UVAS_INJ_UFFD call sites yet");
    if (cs == TI_EXIT_SIGBUS)
        printf("  the first touch got SIGBUS when its ioctl failed\n");
    else
        CHECK(cs == 0, "the child ended with %d", cs);
    printf("uffd: the process keeps working after an injected ioctl failure\n");
    return 0;
}
