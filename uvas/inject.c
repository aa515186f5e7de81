/* Fault injection (see inject.h): which calls fail, and how many did. */
#include "uvas/inject.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "uvas.h"
#include "uvas/atomics.h"
#include "uvas/status.h"

enum mode { M_OFF = 0, M_ONCE, M_FROM, M_EVERY, M_RATE };

struct site {
    _Atomic int mode;
    _Atomic uint64_t n;      /* N or K */
    _Atomic double p;        /* rate */
    _Atomic uint64_t calls;  /* calls seen while armed */
    _Atomic uint64_t hits;   /* failures injected */
};

_Atomic bool uvas_inject_on;
static struct site sites[UVAS_INJ_COUNT];
static _Atomic uint64_t seed_v = 1;

static const char *const names[UVAS_INJ_COUNT] = {
    [UVAS_INJ_DEVICE_ALLOC] = "device-alloc", [UVAS_INJ_EXPORT] = "export",
    [UVAS_INJ_MAP] = "map",                   [UVAS_INJ_DMA] = "dma",
    [UVAS_INJ_UFFD] = "uffd",                 [UVAS_INJ_MMAP] = "mmap",
    [UVAS_INJ_MEMFD] = "memfd",               [UVAS_INJ_UCX] = "ucx",
};

const char *uvas_inject_site_name(enum uvas_inject_site s)
{
    return (unsigned)s < UVAS_INJ_COUNT ? names[s] : "?";
}

/* splitmix64: the nth call of a site decides alone, whatever the threads. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

bool uvas_inject_hit(enum uvas_inject_site s)
{
    if ((unsigned)s >= UVAS_INJ_COUNT)
        return false;
    struct site *x = &sites[s];
    int m = atomic_load_explicit(&x->mode, RLX);
    if (m == M_OFF)
        return false;
    uint64_t n = atomic_fetch_add_explicit(&x->calls, 1, RLX) + 1;
    uint64_t k = atomic_load_explicit(&x->n, RLX);
    bool fail = false;
    switch (m) {
    case M_ONCE: fail = n == k; break;
    case M_FROM: fail = n >= k; break;
    case M_EVERY: fail = n % k == 0; break;
    case M_RATE: {
        double p = atomic_load_explicit(&x->p, RLX);
        uint64_t h = mix(mix(atomic_load_explicit(&seed_v, RLX) ^ ((uint64_t)s << 56)) ^ n);
        fail = p >= 1.0 || (double)(h >> 11) * 0x1p-53 < p;
        break;
    }
    }
    if (fail)
        atomic_fetch_add_explicit(&x->hits, 1, RLX);
    return fail;
}

uint64_t uvas_inject_count(enum uvas_inject_site s)
{
    return (unsigned)s < UVAS_INJ_COUNT ? atomic_load_explicit(&sites[s].hits, RLX) : 0;
}

uint64_t uvas_inject_calls(enum uvas_inject_site s)
{
    return (unsigned)s < UVAS_INJ_COUNT ? atomic_load_explicit(&sites[s].calls, RLX) : 0;
}

struct parsed {
    int mode;
    uint64_t n;
    double p;
};

static int parse_count(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 19)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v == 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_spec(const char *s, size_t len, struct parsed *o)
{
    if (len > 6 && !strncmp(s, "every:", 6)) {
        o->mode = M_EVERY;
        return parse_count(s + 6, len - 6, &o->n);
    }
    if (len > 5 && !strncmp(s, "rate:", 5)) {
        char buf[64];
        if (len - 5 >= sizeof buf)
            return -1;
        memcpy(buf, s + 5, len - 5);
        buf[len - 5] = '\0';
        if (!isdigit((unsigned char)buf[0]) && buf[0] != '.')
            return -1;
        char *end;
        errno = 0;
        double p = strtod(buf, &end);
        if (errno || *end || !isfinite(p) || !(p > 0.0) || p > 1.0)
            return -1;
        o->mode = M_RATE;
        o->p = p;
        return 0;
    }
    if (len > 1 && s[len - 1] == '+') {
        o->mode = M_FROM;
        return parse_count(s, len - 1, &o->n);
    }
    o->mode = M_ONCE;
    return parse_count(s, len, &o->n);
}

#define FAIL_SPEC(...) uvas_fail(UVAS_ERR_ENV, __VA_ARGS__)

int uvas_inject_configure(const char *spec, uint64_t seed)
{
    struct parsed p[UVAS_INJ_COUNT] = {{0}};
    const char *all = spec ? spec : "";
    for (const char *item = all; *all;) {
        const char *end = strchr(item, ',');
        size_t len = end ? (size_t)(end - item) : strlen(item);
        if (len == 0)
            return FAIL_SPEC("UVAS_INJECT='%s' has an empty entry: write site:spec[,site:spec...]",
                             all);
        const char *colon = memchr(item, ':', len);
        if (!colon)
            return FAIL_SPEC("UVAS_INJECT='%s': '%.*s' has no ':': write site:spec, e.g. dma:3",
                             all, (int)len, item);
        size_t nlen = (size_t)(colon - item);
        int site = -1;
        for (int i = 0; i < UVAS_INJ_COUNT; i++)
            if (strlen(names[i]) == nlen && !strncmp(names[i], item, nlen))
                site = i;
        if (site < 0)
            return FAIL_SPEC("UVAS_INJECT='%s': unknown site '%.*s': use device-alloc, export, "
                             "map, dma, uffd, mmap, memfd or ucx", all, (int)nlen, item);
        if (p[site].mode != M_OFF)
            return FAIL_SPEC("UVAS_INJECT='%s': site '%s' is given twice", all, names[site]);
        const char *sp = colon + 1;
        size_t slen = len - nlen - 1;
        if (parse_spec(sp, slen, &p[site]))
            return FAIL_SPEC("UVAS_INJECT='%s': '%.*s' has a bad spec '%.*s': use N (the Nth "
                             "call), N+ (from the Nth on), every:K or rate:P with 0<P<=1",
                             all, (int)len, item, (int)slen, sp);
        if (!end)
            break;
        item = end + 1;
        if (!*item)
            return FAIL_SPEC("UVAS_INJECT='%s' ends with ',': remove it", all);
    }
    /* Valid: apply. Off first, so no call decides on half a configuration. */
    atomic_store(&uvas_inject_on, false);
    atomic_store_explicit(&seed_v, seed, RLX);
    bool any = false;
    for (int i = 0; i < UVAS_INJ_COUNT; i++) {
        struct site *x = &sites[i];
        atomic_store_explicit(&x->mode, M_OFF, RLX);
        atomic_store_explicit(&x->n, p[i].n, RLX);
        atomic_store_explicit(&x->p, p[i].p, RLX);
        atomic_store_explicit(&x->calls, 0, RLX);
        atomic_store_explicit(&x->hits, 0, RLX);
        atomic_store_explicit(&x->mode, p[i].mode, RLX);
        any |= p[i].mode != M_OFF;
    }
    atomic_store(&uvas_inject_on, any);
    return UVAS_OK;
}

int uvas_inject_from_env(void)
{
    static char last[1024];
    static uint64_t last_seed = 1;
    static bool applied;
    const char *s = getenv("UVAS_INJECT");
    const char *ss = getenv("UVAS_INJECT_SEED");
    if (!s)
        s = "";
    uint64_t seed = 1;
    if (ss) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(ss, &end, 0);
        if (!isdigit((unsigned char)ss[0]) || errno || *end)
            return uvas_fail(UVAS_ERR_ENV, "UVAS_INJECT_SEED='%s' is malformed: give an "
                             "unsigned number", ss);
        seed = v;
    }
    if (strlen(s) >= sizeof last)
        return uvas_fail(UVAS_ERR_ENV, "UVAS_INJECT='%.40s...' is too long (at most %zu "
                         "characters)", s, sizeof last - 1);
    if (applied && !strcmp(s, last) && seed == last_seed)
        return UVAS_OK; /* unchanged: counting goes on */
    if (!applied && !*s)
        return UVAS_OK; /* never armed: nothing to reset (programmatic arming stays) */
    int rc = uvas_inject_configure(s, seed);
    if (rc)
        return rc;
    strcpy(last, s);
    last_seed = seed;
    applied = true;
    return UVAS_OK;
}
