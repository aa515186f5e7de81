/*
 * read-mostly: a device read of a host block copies it to the device and
 * keeps the host copy read-only (UVM's read duplication): both agents then
 * read locally; a write collapses the block to the writer's side.
 */
#include "migrate/policy.h"

static int fault(void *st, const struct uvas_block_view *b, int agent, int write)
{
    (void)st, (void)b;
    return agent == UVAS_AGENT_DEVICE && !write ? UVAS_ACTION_DUPLICATE : UVAS_ACTION_MIGRATE;
}

const struct uvas_policy_ops uvas_policy_read_mostly = {
    .name = "read-mostly",
    .first_touch = uvas_policy_at_agent,
    .fault = fault,
};
