/* Opening a policy, the rules around its answers, and its tick thread. */
#include "migrate/policy.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "migrate/migrate.h"
#include "migrate/state.h"
#include "uvas/internal.h"
#include "uvas/status.h"
#include "uvas/uffd.h"

#define RLX memory_order_relaxed

static const struct uvas_policy_ops *const builtins[] = {
    &uvas_policy_first_touch, &uvas_policy_host,      &uvas_policy_device,
    &uvas_policy_interleave,  &uvas_policy_access_counter, &uvas_policy_hot_cold,
    &uvas_policy_read_mostly,
};

const char *uvas_policy_names(void)
{
    return "first-touch, host, device, interleave, access-counter, hot-cold, read-mostly, or "
           "a path to a shared object";
}

int uvas_policy_params(const char *params, char *err, size_t errlen,
                       int (*fn)(void *, const char *, const char *, char *, size_t), void *st)
{
    char buf[256];
    if (strlen(params) >= sizeof buf) {
        snprintf(err, errlen, "the parameters are too long");
        return UVAS_ERR_INVAL;
    }
    strcpy(buf, params);
    char *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq || eq == kv || !eq[1]) {
            snprintf(err, errlen, "'%s' is not key=value", kv);
            return UVAS_ERR_INVAL;
        }
        *eq = '\0';
        int rc = fn(st, kv, eq + 1, err, errlen);
        if (rc)
            return rc;
    }
    return UVAS_OK;
}

int uvas_policy_number(const char *key, const char *val, double lo, double hi, double *out,
                       char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (errno || end == val || *end || !(v >= lo && v <= hi)) { /* NaN: not in range */
        snprintf(err, errlen, "%s=%s: give a number from %g to %g", key, val, lo, hi);
        return UVAS_ERR_INVAL;
    }
    *out = v;
    return UVAS_OK;
}

/* "name" or "name:params"; a name with a '/' or ending in ".so" is a
 * shared object. */
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
    size_t len = strlen(name);
    if (strchr(name, '/') || (len > 3 && !strcmp(name + len - 3, ".so"))) {
        p->dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!p->dl) {
            snprintf(err, errlen, "cannot load policy '%s': %s", name, dlerror());
            return UVAS_ERR_INVAL;
        }
        p->ops = dlsym(p->dl, "uvas_policy_ops");
        if (!p->ops || !p->ops->name) {
            snprintf(err, errlen, "'%s' exports no 'const struct uvas_policy_ops "
                     "uvas_policy_ops' with a name", name);
            dlclose(p->dl);
            p->dl = NULL;
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
    };
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

/* ---- the tick thread ---------------------------------------------------------- */

#define MAX_REQUESTS 4096

struct tick_req {
    size_t index;
    int res;
};

static struct {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool running, stop;
    struct tick_req req[MAX_REQUESTS];
    size_t nreq;
} ticker = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static int request(struct uvas_policy_tick *t, size_t index, int res)
{
    (void)t;
    if (ticker.nreq == MAX_REQUESTS)
        return UVAS_ERR_NOMEM;
    if (index >= uvas_g.nblocks || (res != UVAS_RES_HOST && res != UVAS_RES_DEVICE))
        return UVAS_ERR_INVAL;
    ticker.req[ticker.nreq++] = (struct tick_req){index, res};
    return UVAS_OK;
}

/* Arm the tracking the policy asked for on the live host blocks not in a
 * transition: unmap them (any access faults once) or write-protect them
 * (a write faults once). */
static void arm_tracking(const struct uvas_block_view *v, size_t n, unsigned flags)
{
    bool access = flags & UVAS_POLICY_TRACK_ACCESS;
    if (!access && !uvas_g.uffd.has_wp)
        return;
    for (size_t k = 0; k < n; k++) {
        if (v[k].residence != UVAS_RES_HOST)
            continue;
        struct uvas_block *b = &uvas_g.bt[v[k].index];
        uint32_t seen;
        if (!uvas_blk_try_busy(b, UVAS_RES_HOST, &seen))
            continue;
        char *a = uvas_block_addr(v[k].index);
        if (access)
            madvise(a, uvas_g.block_size, MADV_DONTNEED); /* the memfd keeps the pages */
        else
            uvas_uffd_protect(&uvas_g.uffd, a, uvas_g.block_size, true);
        uvas_blk_unbusy(b, seen);
        /* A fault dropped while we held the block must be retried. */
        uvas_uffd_wake(&uvas_g.uffd, a, uvas_g.block_size);
    }
}

/* Views of the live blocks, in a buffer that grows with them (a 64 GiB
 * range of 4 KiB blocks has 16M blocks; few are live). */
static void one_tick(struct uvas_policy *p, struct uvas_block_view **vp, size_t *cap)
{
    size_t n = 0, dev = 0;
    for (size_t bi = 0; bi < uvas_g.nblocks; bi++) {
        if (!atomic_load_explicit(&uvas_g.bt[bi].owner, RLX))
            continue;
        if (n == *cap) {
            size_t c = *cap ? 2 * *cap : 1024;
            struct uvas_block_view *v = realloc(*vp, c * sizeof *v);
            if (!v)
                break;
            *vp = v;
            *cap = c;
        }
        struct uvas_block_view *views = *vp;
        uvas_policy_view(bi, &views[n]);
        if (views[n].residence == UVAS_RES_DEVICE)
            dev++;
        n++;
    }
    struct uvas_policy_tick t = {
        .blocks = *vp,
        .nblocks = n,
        .device_capacity_blocks = uvas_devtier_capacity_blocks(&uvas_g.devtier),
        .device_blocks = dev,
        .request = request,
    };
    ticker.nreq = 0;
    p->ops->tick(p->state, &t);
    unsigned track = p->ops->tracking ? p->ops->tracking(p->state) : p->ops->flags;
    if (track & (UVAS_POLICY_TRACK_WRITES | UVAS_POLICY_TRACK_ACCESS))
        arm_tracking(*vp, n, track);
    /* Demotions first: they make the room promotions need. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < ticker.nreq; i++) {
            struct tick_req *r = &ticker.req[i];
            if ((pass == 0) == (r->res == UVAS_RES_HOST) &&
                atomic_load_explicit(&uvas_g.bt[r->index].owner, RLX))
                uvas_migrate_blocks(r->index, 1, r->res, 0);
        }
}

static void *ticker_main(void *arg)
{
    struct uvas_policy *p = arg;
    struct uvas_block_view *views = NULL;
    size_t cap = 0;
    pthread_mutex_lock(&ticker.mu);
    while (!ticker.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned ms = p->ops->tick_interval ? p->ops->tick_interval(p->state) : p->ops->tick_ms;
        uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)ms * 1000000ull;
        ts.tv_sec += (time_t)(ns / 1000000000ull);
        ts.tv_nsec = (long)(ns % 1000000000ull);
        while (!ticker.stop && pthread_cond_timedwait(&ticker.cv, &ticker.mu, &ts) == 0)
            ;
        if (ticker.stop)
            break;
        pthread_mutex_unlock(&ticker.mu);
        one_tick(p, &views, &cap);
        pthread_mutex_lock(&ticker.mu);
    }
    pthread_mutex_unlock(&ticker.mu);
    free(views);
    return NULL;
}

int uvas_policy_ticker_start(struct uvas_policy *p)
{
    unsigned ms = p->ops->tick_interval ? p->ops->tick_interval(p->state) : p->ops->tick_ms;
    if (!p->ops->tick || !ms || !uvas_devtier_present(&uvas_g.devtier))
        return UVAS_OK;
    ticker.stop = false;
    int e = pthread_create(&ticker.th, NULL, ticker_main, p);
    if (e)
        return uvas_fail(UVAS_ERR_SYS, "cannot start the policy thread: %s", strerror(e));
    ticker.running = true;
    return UVAS_OK;
}

void uvas_policy_ticker_stop(void)
{
    if (!ticker.running)
        return;
    pthread_mutex_lock(&ticker.mu);
    ticker.stop = true;
    pthread_cond_broadcast(&ticker.cv);
    pthread_mutex_unlock(&ticker.mu);
    pthread_join(ticker.th, NULL);
    ticker.running = false;
}

int uvas_policy_check(const char *spec, char *why, size_t len)
{
    struct uvas_policy p;
    if (uvas_policy_open(spec, &p, why, len))
        return -1;
    uvas_policy_close(&p);
    return 0;
}
