/* Not a policy of this uvas: one built against a uvas_policy.h from
 * before the layout mark, whose views were smaller (tests check the
 * refusal). It declares what such a header declared, as its object has. */
struct uvas_policy_ops_before_the_mark {
    const char *name;
    void *calls[6];
    unsigned tick_ms;
};
const struct uvas_policy_ops_before_the_mark uvas_policy_ops = {.name = "stale"};
