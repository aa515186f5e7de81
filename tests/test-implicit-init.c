/*
 * Any allocation function initialises implicitly with the environment:
 * without uvas_init, uvas_malloc works and the range follows UVAS_*;
 * a later uvas_init(NULL) is then a no-op (0) and one with other options
 * UVAS_ERR_ALREADY_INIT. With a malformed environment the implicit init
 * fails and the allocation returns NULL with a message.
 */
#include "check.h"

static int implicit_ok(void *arg)
{
    const char *fn = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    tu_setenv("UVAS_BLOCK_SIZE", "4K");
    void *p;
    if (strcmp(fn, "malloc") == 0)
        p = uvas_malloc(100);
    else if (strcmp(fn, "malloc_hint") == 0)
        p = uvas_malloc_hint(100, UVAS_HINT_HOST);
    else if (strcmp(fn, "calloc") == 0)
        p = uvas_calloc(10, 10);
    else if (strcmp(fn, "aligned_alloc") == 0)
        p = uvas_aligned_alloc(64, 100, 0);
    else
        p = uvas_realloc(NULL, 100);
    CHECK(p != NULL, "implicit init through uvas_%s failed: errno %d (%s)", fn,
          errno, uvas_last_error());
    struct uvas_range_desc d = tu_range();
    CHECK_EQ(d.size, 32u << 20, "size from UVAS_SIZE");
    CHECK_EQ(d.block_size, 4096, "block_size from UVAS_BLOCK_SIZE");
    CHECK(tu_in_range(&d, p, 100), "%p outside the range", p);
    CHECK(tu_find_not(p, 100, 0) < 0, "fresh memory is not zero");
    CHECK_OK(uvas_init(NULL));
    struct uvas_options o = {0};
    o.block_size = 8192;
    CHECK_STATUS(uvas_init(&o), UVAS_ERR_ALREADY_INIT);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}

static int implicit_bad_env(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "12Q");
    errno = 0;
    void *p = uvas_malloc(100);
    CHECK(p == NULL, "uvas_malloc returned %p despite UVAS_SIZE=12Q", p);
    CHECK(errno != 0, "errno not set when the implicit init failed");
    CHECK(uvas_last_error()[0] != '\0', "no message for the failed init");
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);
    /* Fixing the environment lets the next call initialise. */
    tu_setenv("UVAS_SIZE", "32M");
    p = uvas_malloc(100);
    CHECK(p != NULL, "uvas_malloc after fixing UVAS_SIZE failed: %s",
          uvas_last_error());
    CHECK_EQ(tu_range().size, 32u << 20, "size");
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}

int main(void)
{
    tu_deadline(55);
    static const char *const fns[] = {"malloc", "malloc_hint", "calloc",
                                      "aligned_alloc", "realloc"};
    int failed = 0, rc;
    for (size_t i = 0; i < 5; i++) {
        rc = tu_run_child(implicit_ok, (void *)fns[i], 15);
        if (rc != 0) {
            fprintf(stderr, "case implicit init via uvas_%s failed: "
                    "status %d\n", fns[i], rc);
            failed = 1;
        }
    }
    rc = tu_run_child(implicit_bad_env, NULL, 15);
    if (rc != 0) {
        fprintf(stderr, "case implicit init with a bad env failed: "
                "status %d\n", rc);
        failed = 1;
    }
    return failed ? TU_EXIT_FAIL : TU_EXIT_PASS;
}
