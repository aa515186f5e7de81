/* Built-in placement policies and the hint/availability rules around them. */
#include "migrate/policy.h"

#include <string.h>

#include "uvas.h"

/* A CPU touch places on the CPU: the agent that touches first is the one
 * that will most likely touch again (Linux first-touch NUMA policy). */
static int first_touch(const struct uvas_place_ctx *c)
{
    return c->cpu_access || !c->device_present ? UVAS_RES_HOST : UVAS_RES_DEVICE;
}

static int all_host(const struct uvas_place_ctx *c)
{
    (void)c;
    return UVAS_RES_HOST;
}

static int all_device(const struct uvas_place_ctx *c)
{
    (void)c;
    return UVAS_RES_DEVICE;
}

static const struct uvas_policy builtins[] = {
    {"first-touch", "place a block where it is first touched", first_touch},
    {"host", "every block in CPU memory", all_host},
    {"device", "every block in GPU memory while it has room", all_device},
};

const struct uvas_policy *uvas_policy_find(const char *name)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (!strcmp(builtins[i].name, name))
            return &builtins[i];
    return NULL;
}

const char *uvas_policy_names(void)
{
    return "first-touch, host, device";
}

int uvas_policy_place(const struct uvas_policy *p, const struct uvas_place_ctx *c)
{
    int res;
    if (c->heap == UVAS_HEAP_HOST || c->stray)
        res = UVAS_RES_HOST;
    else if (c->heap == UVAS_HEAP_DEVICE)
        res = UVAS_RES_DEVICE;
    else if (c->preferred)
        res = c->preferred;
    else
        res = p->first_touch(c);
    if (res == UVAS_RES_DEVICE && !c->device_present)
        res = UVAS_RES_HOST;
    return res;
}

int uvas_policy_cpu_fault(const struct uvas_policy *p, const struct uvas_cpu_fault_ctx *c)
{
    int a = p->cpu_fault ? p->cpu_fault(c)
                         : (c->advised_cpu ? UVAS_CPU_FAULT_MAP : UVAS_CPU_FAULT_MIGRATE);
    return a == UVAS_CPU_FAULT_MAP && c->can_map ? UVAS_CPU_FAULT_MAP : UVAS_CPU_FAULT_MIGRATE;
}

int uvas_policy_device_full(const struct uvas_policy *p, const struct uvas_full_ctx *c)
{
    return p->device_full ? p->device_full(c) : UVAS_FULL_EVICT;
}
