/* Not a policy of this uvas: one built against a uvas_policy.h from
 * before the layout mark, whose views were smaller (tests check the
 * refusal). It declares what such a header declared, as its object has,
 * and calls into libuvas (which carries a mark of its own) as policies
 * that read peers' counts do. */
const char *uvas_policy_current(void);

struct uvas_policy_ops_before_the_mark {
    const char *name;
    int (*init)(const char *params, void **state, char *err, unsigned long errlen);
    void *calls[5];
    unsigned tick_ms;
};

static int init(const char *params, void **state, char *err, unsigned long errlen)
{
    (void)params, (void)err, (void)errlen;
    *state = (void *)uvas_policy_current();
    return 0;
}

const struct uvas_policy_ops_before_the_mark uvas_policy_ops = {.name = "stale", .init = init};
