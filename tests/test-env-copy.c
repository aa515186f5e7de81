/*
 * The copy settings: UVAS_COPY_QUEUES (1 or 2: queues of the copy-engine
 * family migrations use) and UVAS_STREAM_MIN (the smallest put into
 * another PE's memory made with streaming stores: a size, or "off") and
 * UVAS_STAGE_FIRST (1 or 0: blocks with no kept import through staging
 * lanes, or imported on the migration's path).
 * Accepted values initialise and migrate; anything else is UVAS_ERR_ENV
 * naming the variable. Each case runs in its own child.
 */
#include "check.h"

struct setting {
    const char *var, *value;
};

static int expect_env_error(void *arg)
{
    const struct setting *s = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    tu_setenv(s->var, s->value);
    int st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ENV, "%s=\"%s\": uvas_init returned %d (%s), expected UVAS_ERR_ENV",
          s->var, s->value, st, uvas_strerror(st));
    CHECK(strstr(uvas_last_error(), s->var) != NULL,
          "%s=\"%s\": last error \"%s\" does not name the variable", s->var, s->value,
          uvas_last_error());
    return 0;
}

/* Accepted: the range works, and data survives a round trip through the
 * device where there is one. */
static int expect_ok(void *arg)
{
    const struct setting *s = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    tu_setenv(s->var, s->value);
    CHECK_OK(uvas_init(NULL));
    size_t n = 8u << 20;
    unsigned char *p = uvas_malloc(n);
    CHECK(p != NULL, "uvas_malloc: %s", uvas_last_error());
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7 + 1);
    int st = uvas_migrate(p, n, UVAS_LOC_DEVICE, 0);
    CHECK(st == UVAS_OK || st == UVAS_ERR_NO_DEVICE, "%s=%s: migrate: %s", s->var, s->value,
          uvas_last_error());
    if (st == UVAS_OK)
        CHECK_OK(uvas_migrate(p, n, UVAS_LOC_HOST, 0));
    for (size_t i = 0; i < n; i++)
        CHECK(p[i] == (unsigned char)(i * 7 + 1), "%s=%s: byte %zu changed", s->var, s->value,
              i);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}

int main(void)
{
    tu_deadline(58);
    static const struct setting bad[] = {
        {"UVAS_COPY_QUEUES", "0"}, {"UVAS_COPY_QUEUES", "3"}, {"UVAS_COPY_QUEUES", "x"},
        {"UVAS_COPY_QUEUES", ""},  {"UVAS_COPY_QUEUES", "-1"}, {"UVAS_STREAM_MIN", "0"},
        {"UVAS_STREAM_MIN", "x"},  {"UVAS_STREAM_MIN", ""},   {"UVAS_STREAM_MIN", "4Q"},
        {"UVAS_STREAM_MIN", "-1"}, {"UVAS_STAGE_FIRST", "2"}, {"UVAS_STAGE_FIRST", "yes"},
        {"UVAS_STAGE_FIRST", ""},  {"UVAS_STAGE_FIRST", "-1"},
    };
    static const struct setting good[] = {
        {"UVAS_COPY_QUEUES", "1"}, {"UVAS_COPY_QUEUES", "2"}, {"UVAS_STREAM_MIN", "off"},
        {"UVAS_STREAM_MIN", "64K"}, {"UVAS_STAGE_FIRST", "0"}, {"UVAS_STAGE_FIRST", "1"},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (tu_run_child(expect_env_error, (void *)&bad[i], 10) != 0) {
            fprintf(stderr, "case %s=\"%s\" failed\n", bad[i].var, bad[i].value);
            failed = 1;
        }
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int rc = tu_run_child(expect_ok, (void *)&good[i], 30);
        if (rc == TU_EXIT_SKIP)
            return TU_EXIT_SKIP;
        if (rc != 0) {
            fprintf(stderr, "case %s=\"%s\" failed: status %d\n", good[i].var, good[i].value,
                    rc);
            failed = 1;
        }
    }
    return failed ? TU_EXIT_FAIL : TU_EXIT_PASS;
}
