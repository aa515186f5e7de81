/* Not a policy: it exports no uvas_policy_ops (tests check the refusal). */
int uvas_not_a_policy = 1;
