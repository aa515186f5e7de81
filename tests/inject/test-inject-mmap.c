/*
 * UVAS_INJECT=mmap:N: the mmap of the range fails.
 *  - mmap:1: the first uvas_init fails with UVAS_ERR_NOMEM and a message
 *    saying the range could not be mapped; nothing is left behind; the
 *    next uvas_init (the same UVAS_INJECT: counting goes on) works, and
 *    uvas_stats.injected[mmap] is 1;
 *  - the implicit init of uvas_malloc reports the same failure (NULL,
 *    errno ENOMEM) and the next uvas_malloc works;
 *  - memory written after the recovery is intact through finalize and
 *    another failed init (mmap:1+: every init fails until UVAS_INJECT
 *    changes; a copy kept outside shows the data as written).
 */
#include "inject-util.h"

/* The implicit init of uvas_malloc with the range's mmap failing once. */
static int implicit_init(void *arg)
{
    (void)arg;
    tu_setenv("UVAS_INJECT", "mmap:1");
    tu_setenv("UVAS_INJECT_SEED", "2"); /* another value: injection starts afresh */
    errno = 0;
    unsigned char *p = uvas_malloc(4096);
    CHECK(p == NULL && errno == ENOMEM, "uvas_malloc with the range's mmap failing: %p, "
          "errno %d", (void *)p, errno);
    CHECK(strstr(uvas_last_error(), "cannot map the"), "uvas_malloc's message: '%s'",
          uvas_last_error());
    printf("  uvas_malloc -> NULL, errno ENOMEM: %s\n", uvas_last_error());
    p = uvas_malloc(4096);
    CHECK(p != NULL, "the next uvas_malloc");
    memset(p, 0x3c, 4096);
    CHECK_EQ(ti_injected(UVAS_INJ_MMAP), 1, "injected[mmap] after the implicit init");
    CHECK(tu_find_not(p, 4096, 0x3c) < 0, "data written after the implicit init");

    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}

int main(void)
{
    tu_deadline(60);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    /* Implicit init first, in a child that has never finalized (after
     * uvas_finalize an allocation does not start uvas again). */
    CHECK_EQ(tu_run_child(implicit_init, NULL, 30), 0, "implicit init with mmap:1");
    tu_setenv("UVAS_INJECT", "mmap:1");
    ti_expect_error(uvas_init(NULL), UVAS_ERR_NOMEM, "cannot map the");
    struct uvas_range_desc d;
    CHECK(uvas_range(&d) == UVAS_ERR_NOT_INIT, "a failed init left the controller running");
    tu_init_env(); /* call 2: not injected */
    CHECK_EQ(ti_injected(UVAS_INJ_MMAP), 1, "injected[mmap] after the failed init");
    d = tu_range();
    size_t len = 16 * d.block_size;
    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc after recovering");
    ti_fill(p, len, 3);
    ti_verify(p, len, 3, d.block_size, "data written after recovering");
    uvas_free(p);
    CHECK_OK(uvas_finalize());

    /* N+: every init fails, each with the message, until the value changes. */
    tu_setenv("UVAS_INJECT", "mmap:1+");
    for (int i = 0; i < 3; i++)
        ti_expect_error(uvas_init(NULL), UVAS_ERR_NOMEM, "cannot map the");
    tu_setenv("UVAS_INJECT", "mmap:9");
    tu_init_env();
    CHECK_EQ(ti_injected(UVAS_INJ_MMAP), 0, "injected[mmap] after UVAS_INJECT changed");
    p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    ti_fill(p, len, 4);
    ti_verify(p, len, 4, d.block_size, "data after the failed inits");
    CHECK_OK(uvas_finalize());
    printf("mmap: init fails with a clear error, the next one works\n");
    return 0;
}
