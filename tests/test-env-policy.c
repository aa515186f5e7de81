/*
 * UVAS_POLICY: "first-touch", "host" and "device" are taken and named by
 * uvas_range(); the default is "first-touch"; an unknown name is
 * UVAS_ERR_ENV with a message naming the bad policy; options.policy with an
 * unknown name is UVAS_ERR_INVAL. Each case runs in its own child.
 */
#include "check.h"

static int good_policy(void *arg)
{
    const char *name = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    if (name)
        tu_setenv("UVAS_POLICY", name);
    int st = uvas_init(NULL);
    CHECK(st == 0, "UVAS_POLICY=\"%s\": uvas_init %d (%s)",
          name ? name : "(unset)", st, uvas_strerror(st));
    struct uvas_range_desc d = tu_range();
    const char *expect = name ? name : "first-touch";
    CHECK(d.policy != NULL && strcmp(d.policy, expect) == 0,
          "policy \"%s\", expected \"%s\"", d.policy ? d.policy : "(null)",
          expect);
    /* Allocations work and are placed on a tier when touched. */
    char *p = uvas_malloc(100000);
    CHECK(p != NULL, "uvas_malloc failed: errno %d", errno);
    memset(p, 7, 100000);
    int res = tu_residence(p);
    CHECK(res == UVAS_RES_HOST || (d.device_present && res == UVAS_RES_DEVICE),
          "touched block residence %d", res);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}

static int bad_policy(void *arg)
{
    const char *name = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    tu_setenv("UVAS_POLICY", name);
    int st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ENV,
          "UVAS_POLICY=\"%s\": uvas_init %d (%s), expected UVAS_ERR_ENV", name,
          st, uvas_strerror(st));
    const char *msg = uvas_last_error();
    CHECK(strstr(msg, name) != NULL,
          "UVAS_POLICY=\"%s\": last error \"%s\" does not name the policy",
          name, msg);
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);
    return 0;
}

static int bad_option_policy(void *arg)
{
    (void)arg;
    tu_clear_env();
    struct uvas_options o = {0};
    o.size = 32u << 20;
    o.policy = "no-such-policy";
    int st = uvas_init(&o);
    CHECK(st == UVAS_ERR_INVAL,
          "options.policy=\"no-such-policy\": uvas_init %d (%s), expected "
          "UVAS_ERR_INVAL", st, uvas_strerror(st));
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);
    /* The option wins over the environment. */
    tu_setenv("UVAS_POLICY", "host");
    o.policy = "first-touch";
    CHECK_OK(uvas_init(&o));
    struct uvas_range_desc d = tu_range();
    CHECK(strcmp(d.policy, "first-touch") == 0,
          "options.policy first-touch with UVAS_POLICY=host: policy \"%s\"",
          d.policy);
    CHECK_OK(uvas_finalize());
    return 0;
}

int main(void)
{
    tu_deadline(55);
    static const char *const good[] = {NULL, "first-touch", "host", "device"};
    static const char *const bad[] = {"bogus-policy", "round_robin", "HOSTX",
                                      "first_touch2"};
    int failed = 0, rc;
    for (size_t i = 0; i < 4; i++) {
        rc = tu_run_child(good_policy, (void *)good[i], 15);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_POLICY=%s failed: status %d\n",
                    good[i] ? good[i] : "(unset)", rc);
            failed = 1;
        }
    }
    for (size_t i = 0; i < 4; i++) {
        rc = tu_run_child(bad_policy, (void *)bad[i], 15);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_POLICY=\"%s\" failed: status %d\n",
                    bad[i], rc);
            failed = 1;
        }
    }
    rc = tu_run_child(bad_option_policy, NULL, 15);
    if (rc != 0) {
        fprintf(stderr, "case options.policy failed: status %d\n", rc);
        failed = 1;
    }
    return failed ? TU_EXIT_FAIL : TU_EXIT_PASS;
}
