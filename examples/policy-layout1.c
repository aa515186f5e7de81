/* Not a policy of this uvas: one built against the uvas_policy.h of
 * layout 1, whose views ended at peer_kernel_accesses and whose ticks had
 * no time (tests check the refusal). Its mark is what that header put in
 * it. */
const unsigned uvas_policy_abi = 1;

struct uvas_policy_ops_layout1 {
    const char *name;
    void *calls[6];
    unsigned tick_ms;
};

const struct uvas_policy_ops_layout1 uvas_policy_ops = {.name = "layout1"};
