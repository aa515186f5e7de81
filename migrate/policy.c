/* Opening a policy (built in or a shared object) and the rules around its answers. */
#include "migrate/policy.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate/state.h"
#include "uvas/atomics.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/status.h"

static const struct uvas_policy_ops *const builtins[] = {
    &uvas_policy_first_touch, &uvas_policy_host,      &uvas_policy_device,
    &uvas_policy_interleave,  &uvas_policy_access_counter, &uvas_policy_hot_cold,
    &uvas_policy_read_mostly, &uvas_policy_peers,
};

const char *uvas_policy_names(void)
{
    return "first-touch, host, device, interleave, access-counter, hot-cold, read-mostly, peers, "
           "or a path to a shared object";
}

/* Does the shared object dl, whose ops are at ops, carry this header's
 * layout mark, its own uvas_policy_abi (not one dlsym finds in a library
 * it depends on: this one defines it too)? true, or false with why in
 * err. */
static bool marked(void *dl, const void *ops, const char *name, char *err, size_t errlen)
{
    const unsigned *abi = dlsym(dl, "uvas_policy_abi");
    Dl_info at_ops, at_abi;
    if (!abi) {
        snprintf(err, errlen, "'%s' carries no layout mark (built before uvas had one, or its "
                 "uvas_policy_abi is not exported): rebuild it with this uvas's "
                 "uvas_policy.h included where uvas_policy_ops is defined", name);
        return false;
    }
    if (!dladdr(ops, &at_ops) || !dladdr(abi, &at_abi)) {
        snprintf(err, errlen, "'%s': the loader cannot say which object defines its "
                 "uvas_policy_ops or its layout mark, so the mark cannot be checked", name);
        return false;
    }
    if (at_ops.dli_fbase != at_abi.dli_fbase) {
        snprintf(err, errlen, "'%s' carries no layout mark of its own (the one found is %s's): "
                 "rebuild it with this uvas's uvas_policy.h included where uvas_policy_ops is "
                 "defined", name, at_abi.dli_fname ? at_abi.dli_fname : "another object");
        return false;
    }
    if (*abi != UVAS_POLICY_ABI) {
        snprintf(err, errlen, "'%s' was built against another uvas_policy.h (its layout %u, "
                 "this library's %u): rebuild it against this uvas's include/uvas_policy.h",
                 name, *abi, UVAS_POLICY_ABI);
        return false;
    }
    return true;
}

int uvas_policy_open(const char *spec, struct uvas_policy *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (strlen(spec) >= sizeof p->spec) {
        snprintf(err, errlen, "'%.40s...' is too long", spec);
        return UVAS_ERR_INVAL;
    }
    strcpy(p->spec, spec);
    char name[256];
    const char *colon = strchr(spec, ':');
    size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
    memcpy(name, spec, nl);
    name[nl] = '\0';
    const char *params = colon ? colon + 1 : "";
    if (colon && !colon[1]) {
        snprintf(err, errlen, "'%s' ends in ':' with no parameters: give name:key=value or "
                 "the name alone", spec);
        return UVAS_ERR_INVAL;
    }
    size_t len = strlen(name);
    if (strchr(name, '/') || (len > 3 && !strcmp(name + len - 3, ".so"))) {
        if (errlen)
            err[0] = '\0';
        p->dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!p->dl) {
            snprintf(err, errlen, "cannot load policy '%s': %s", name, dlerror());
            return UVAS_ERR_INVAL;
        }
        p->ops = dlsym(p->dl, "uvas_policy_ops");
        bool ok = p->ops && marked(p->dl, p->ops, name, err, errlen) && p->ops->name;
        if (!ok) {
            if (!p->ops)
                snprintf(err, errlen, "'%s' exports no 'const struct uvas_policy_ops "
                         "uvas_policy_ops'", name);
            else if (!*err) /* marked, and no name */
                snprintf(err, errlen, "'%s' exports a uvas_policy_ops with no name", name);
            dlclose(p->dl);
            p->dl = NULL;
            p->ops = NULL;
            return UVAS_ERR_INVAL;
        }
    } else {
        for (size_t i = 0; i < sizeof builtins / sizeof builtins[0] && !p->ops; i++)
            if (!strcmp(builtins[i]->name, name))
                p->ops = builtins[i];
        if (!p->ops) {
            snprintf(err, errlen, "'%s' names no placement policy: use one of %s", name,
                     uvas_policy_names());
            return UVAS_ERR_INVAL;
        }
    }
    if (p->ops->init) {
        char why[200] = "";
        if (p->ops->init(params, &p->state, why, sizeof why) != 0) {
            snprintf(err, errlen, "policy '%s': %s", p->ops->name, why[0] ? why : "init failed");
            uvas_policy_close(p);
            return UVAS_ERR_INVAL;
        }
    } else if (params[0]) {
        snprintf(err, errlen, "policy '%s' takes no parameters (got '%s')", p->ops->name, params);
        uvas_policy_close(p);
        return UVAS_ERR_INVAL;
    }
    return UVAS_OK;
}

unsigned uvas_policy_tracking(const struct uvas_policy *p)
{
    return p->ops->tracking ? p->ops->tracking(p->state) : p->ops->flags;
}

void uvas_policy_close(struct uvas_policy *p)
{
    if (p->ops && p->ops->fini && p->state)
        p->ops->fini(p->state);
    if (p->dl)
        dlclose(p->dl);
    memset(p, 0, sizeof *p);
}

void uvas_policy_view(size_t bi, struct uvas_block_view *v)
{
    const struct uvas_block *b = &uvas_g.bt[bi];
    *v = (struct uvas_block_view){
        .index = bi,
        .addr = uvas_block_addr(bi),
        .residence = uvas_blk_res(atomic_load_explicit(&b->state, RLX)),
        .heap = atomic_load_explicit(&b->heap, RLX),
        .preferred = atomic_load_explicit(&b->tier_pref, RLX),
        .accesses = {atomic_load_explicit(&b->acc[0], RLX), atomic_load_explicit(&b->acc[1], RLX)},
        .migrations = atomic_load_explicit(&b->moves, RLX),
        .writes = atomic_load_explicit(&b->writes, RLX),
        .last_migration_ns = atomic_load_explicit(&b->moved_ns, RLX),
        .generation = atomic_load_explicit(&b->generation, RLX),
    };
    struct uvas_gate_peer_sum ps;
    uvas_gate_peer_sum(bi, &ps);
    v->peer_accesses = ps.all;
    v->peer_top = ps.top;
    v->peer_kernel_accesses = ps.kernels;
}

uint32_t uvas_policy_peer_accesses(size_t index, int pe)
{
    if (pe < 0 || (unsigned)pe >= uvas_gate_ranks())
        return 0;
    return uvas_gate_acc(pe, index, NULL);
}

uint32_t uvas_policy_network_accesses(size_t index)
{
    return uvas_gate_acc(uvas_gate_ranks(), index, NULL); /* the remote peers' party */
}

uint32_t uvas_policy_peer_kernel_accesses(size_t index, int pe)
{
    uint32_t k = 0;
    if (pe >= 0 && (unsigned)pe < uvas_gate_ranks())
        uvas_gate_acc(pe, index, &k);
    return k;
}

int uvas_policy_place(const struct uvas_policy *p, size_t bi, int agent)
{
    const struct uvas_block *b = &uvas_g.bt[bi];
    bool device = uvas_devtier_present(&uvas_g.devtier);
    int res;
    int heap = atomic_load_explicit(&b->heap, RLX);
    int pref = atomic_load_explicit(&b->tier_pref, RLX);
    if (atomic_load_explicit(&b->owner, RLX) == 0 || heap == UVAS_HEAP_HOST)
        res = UVAS_RES_HOST;
    else if (heap == UVAS_HEAP_DEVICE)
        res = UVAS_RES_DEVICE;
    else if (pref)
        res = pref;
    else if (p->ops->first_touch) {
        struct uvas_block_view v;
        uvas_policy_view(bi, &v);
        res = p->ops->first_touch(p->state, &v, agent);
    } else {
        res = agent == UVAS_AGENT_DEVICE ? UVAS_RES_DEVICE : UVAS_RES_HOST;
    }
    if (res != UVAS_RES_HOST && res != UVAS_RES_DEVICE)
        res = UVAS_RES_HOST; /* a policy's nonsense answer: the safe tier */
    if (res == UVAS_RES_DEVICE && !device)
        res = UVAS_RES_HOST;
    return res;
}

int uvas_policy_fault(const struct uvas_policy *p, size_t bi, int agent, int write,
                      bool can_remote)
{
    const struct uvas_block *b = &uvas_g.bt[bi];
    int a;
    if (atomic_load_explicit(&b->heap, RLX) == UVAS_HEAP_HOST && can_remote)
        return UVAS_ACTION_REMOTE; /* host-heap memory never moves */
    if (p->ops->fault) {
        struct uvas_block_view v;
        uvas_policy_view(bi, &v);
        a = p->ops->fault(p->state, &v, agent, write);
    } else {
        /* By default only advice keeps a block where it is. */
        bool cpu_advised = atomic_load_explicit(&b->advice, RLX) & UVAS_BA_CPU_MAP;
        a = agent == UVAS_AGENT_CPU && cpu_advised ? UVAS_ACTION_REMOTE : UVAS_ACTION_MIGRATE;
    }
    if (a == UVAS_ACTION_REMOTE && can_remote)
        return UVAS_ACTION_REMOTE;
    if (a == UVAS_ACTION_DUPLICATE && agent == UVAS_AGENT_DEVICE && !write)
        return UVAS_ACTION_DUPLICATE;
    return UVAS_ACTION_MIGRATE;
}

int uvas_policy_device_full(const struct uvas_policy *p, size_t bi)
{
    if (!p->ops->device_full)
        return UVAS_FULL_DO_EVICT;
    struct uvas_block_view v;
    uvas_policy_view(bi, &v);
    return p->ops->device_full(p->state, &v) == UVAS_FULL_DO_KEEP_HOST ? UVAS_FULL_DO_KEEP_HOST
                                                                       : UVAS_FULL_DO_EVICT;
}

const char *uvas_policy_current(void)
{
    return atomic_load(&uvas_g.ready) ? uvas_mg.policy.spec : "";
}

int uvas_policy_check(const char *spec, char *why, size_t len)
{
    struct uvas_policy p;
    if (uvas_policy_open(spec, &p, why, len))
        return -1;
    uvas_policy_close(&p);
    return 0;
}
