/*
 * Policy strings: every built-in with its parameters is accepted and
 * reported back; a bad name, key, value or shape, and a shared object that
 * is missing or exports no policy, make uvas_init fail with UVAS_ERR_ENV
 * (UVAS_ERR_INVAL through the options) and a message naming the bad part.
 */
#include "check.h"

static void good(const char *spec)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    tu_setenv("UVAS_POLICY", spec);
    CHECK_OK(uvas_init(NULL));
    CHECK(!strcmp(tu_range().policy, spec), "policy reported as '%s', set '%s'",
          tu_range().policy, spec);
    CHECK_OK(uvas_finalize());
}

static void bad(const char *spec, const char *named)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    tu_setenv("UVAS_POLICY", spec);
    CHECK_STATUS(uvas_init(NULL), UVAS_ERR_ENV);
    CHECK(strstr(uvas_last_error(), "UVAS_POLICY") && strstr(uvas_last_error(), named),
          "UVAS_POLICY='%s': message '%s' should name '%s'", spec, uvas_last_error(), named);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    struct uvas_options o = {.policy = spec};
    CHECK_STATUS(uvas_init(&o), UVAS_ERR_INVAL);
    CHECK(strstr(uvas_last_error(), named), "options.policy='%s': message '%s' should name "
          "'%s'", spec, uvas_last_error(), named);
}

int main(int argc, char **argv)
{
    (void)argc;
    tu_deadline(50);
    /* The example policies are built beside the tests: ../examples/. */
    char dir[512], stripe[600], broken[600], stale[600], layout1[600];
    snprintf(dir, sizeof dir, "%s", argv[0]);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    snprintf(stripe, sizeof stripe, "%s/../examples/libpolicy-stripe.so", dir);
    snprintf(broken, sizeof broken, "%s/../examples/libpolicy-broken.so", dir);
    snprintf(stale, sizeof stale, "%s/../examples/libpolicy-stale.so", dir);
    snprintf(layout1, sizeof layout1, "%s/../examples/libpolicy-layout1.so", dir);

    good("first-touch");
    good("host");
    good("device");
    good("interleave");
    good("interleave:ratio=0.25");
    good("access-counter:threshold=3,thrash=2,window_ms=50");
    good("access-counter:threshold=3,gpu_threshold=256");
    good("hot-cold:fraction=0.5,tick_ms=10");
    good("hot-cold:sample=writes");
    good("hot-cold:sample=none,fraction=1");
    good("hot-cold:thrash=2,window_ms=500");
    good("read-mostly");
    good("peers");
    good("peers:ratio=3,min=8,half_ms=500,tick_ms=5,sample=none,thrash=2,window_ms=200");
    char spec[700];
    snprintf(spec, sizeof spec, "%s:every=3", stripe);
    good(spec);

    bad("nosuch", "nosuch");
    bad("interleave:ratio=2", "ratio=2");
    bad("interleave:speed=1", "speed");
    bad("access-counter:threshold", "threshold");
    bad("access-counter:threshold=0", "threshold=0");
    bad("access-counter:gpu_threshold=0", "gpu_threshold=0");
    bad("access-counter:gpu_threshold=x", "gpu_threshold=x");
    bad("hot-cold:tick_ms=abc", "tick_ms=abc");
    bad("hot-cold:sample=reads", "sample=reads");
    bad("hot-cold:thrash=0", "thrash=0");
    bad("peers:ratio=0.5", "ratio=0.5");
    bad("peers:min=0", "min=0");
    bad("peers:half_ms=0", "half_ms=0");
    bad("peers:sample=writes", "sample=writes");
    bad("peers:fraction=1", "fraction");
    bad("host:x=1", "takes no parameters");
    /* Accepted before (found by review): an empty item, a key given twice
     * (the last won), a space before a value, a ':' with nothing after. */
    bad("access-counter:threshold=4,,thrash=2", "not key=value");
    bad("interleave:ratio=0.5,ratio=0.9", "given twice");
    bad("access-counter:threshold= 4", "not key=value");
    bad("host:", "no parameters");
    bad("interleave:,ratio=0.5", "not key=value");
    bad("./no-such-policy.so", "no-such-policy.so");
    snprintf(spec, sizeof spec, "%s:every=0", stripe);
    bad(spec, "every=0");
    bad(broken, "exports no");
    bad(stale, "no layout mark of its own (the one found is");
    bad(layout1, "its layout 1, this library's");
    return 0;
}
