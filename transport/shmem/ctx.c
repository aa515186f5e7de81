/*
 * Communication contexts: each is an ordering domain of the PE layer
 * (transport/pe/domain.c). Every operation but an active-message put
 * completes before it returns, so what a context has to wait for at its
 * quiet are its own puts that the owner has not acknowledged yet; an
 * operation made in a context runs with the context's domain as this
 * thread's, and its quiet waits for that domain alone. The default
 * context has none: shmem_quiet waits for every put of the PE.
 *
 * A context made on a team numbers PEs as the team does (OpenSHMEM 1.5,
 * 9.4.2): its operations translate pe to the world's number first, from
 * the team's geometry kept in the context (a team's PEs never change).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "shmem.h"
#include "transport/pe/pe.h"
#include "transport/shmem/error.h"
#include "transport/shmem/internal.h"
#include "uvas.h"

#define KNOWN_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

struct uvas_shmem_ctx {
    struct uvas_shmem_ctx *next;
    /* The user's handle: a number never given before, not the address, so
     * that a destroyed context's handle cannot name a context made later
     * where its memory was. */
    shmem_ctx_t handle;
    long options;
    shmem_team_t team;
    int start, stride, size; /* the team's PEs in the world's numbering */
    unsigned domain;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct uvas_shmem_ctx *live;
static uintptr_t handles = 16; /* the last handle given, under mu; 0 and 1 are predefined */

/* The context a handle names (SHMEM_CTX_DEFAULT: NULL, *ok); else
 * reported. */
static struct uvas_shmem_ctx *find(const char *call, shmem_ctx_t ctx, bool *ok)
{
    *ok = true;
    if (ctx == SHMEM_CTX_DEFAULT)
        return NULL;
    pthread_mutex_lock(&mu);
    struct uvas_shmem_ctx *c = live;
    while (c && c->handle != ctx)
        c = c->next;
    pthread_mutex_unlock(&mu);
    if (!c) {
        *ok = false;
        uvas_shmem_fail(call, UVAS_ERR_INVAL, ctx == SHMEM_CTX_INVALID
                            ? "ctx is SHMEM_CTX_INVALID"
                            : "context %p is not a live context of this PE (destroyed, or "
                              "never made)", (void *)ctx);
    }
    return c;
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    static const char call[] = "shmem_team_create_ctx";
    if (!ctx) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "ctx is NULL");
        return 1;
    }
    *ctx = SHMEM_CTX_INVALID;
    if (team == SHMEM_TEAM_INVALID)
        return uvas_shmem_decline(call, UVAS_ERR_INVAL, "team is SHMEM_TEAM_INVALID: no "
                                  "context made") != 0;
    struct uvas_shmem_team *t = uvas_shmem_team_of(call, team);
    if (!t)
        return 1;
    if (options & ~KNOWN_OPTIONS) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "unknown options %#lx (SHMEM_CTX_SERIALIZED, "
                        "_PRIVATE and _NOSTORE are known)", options & ~KNOWN_OPTIONS);
        return 1;
    }
    struct uvas_shmem_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        uvas_shmem_fail(call, UVAS_ERR_NOMEM, "no memory for a context");
        return 1;
    }
    int st = uvas_pe_domain_open(&c->domain);
    if (st != UVAS_OK) {
        /* out of ordering domains: the nonzero return says "none made" */
        free(c);
        uvas_shmem_decline(call, st, "%s", uvas_last_error());
        return 1;
    }
    c->options = options;
    c->team = team;
    c->start = t->start;
    c->stride = t->stride;
    c->size = t->size;
    pthread_mutex_lock(&mu);
    c->handle = (shmem_ctx_t)++handles;
    c->next = live;
    live = c;
    pthread_mutex_unlock(&mu);
    *ctx = c->handle;
    return 0;
}

void uvas_shmem_ctx_destroy_team(shmem_team_t team)
{
    for (;;) {
        pthread_mutex_lock(&mu);
        struct uvas_shmem_ctx *c = live;
        while (c && (c->team != team || (c->options & SHMEM_CTX_PRIVATE)))
            c = c->next;
        shmem_ctx_t h = c ? c->handle : SHMEM_CTX_INVALID;
        pthread_mutex_unlock(&mu);
        if (h == SHMEM_CTX_INVALID)
            return;
        shmem_ctx_destroy(h);
    }
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT) {
        uvas_shmem_fail("shmem_ctx_destroy", UVAS_ERR_INVAL, "the default context cannot "
                        "be destroyed");
        return;
    }
    bool ok;
    struct uvas_shmem_ctx *c = find("shmem_ctx_destroy", ctx, &ok);
    if (!c)
        return;
    uvas_pe_domain_quiet(c->domain); /* its operations complete first */
    pthread_mutex_lock(&mu);
    for (struct uvas_shmem_ctx **pp = &live; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    pthread_mutex_unlock(&mu);
    uvas_pe_domain_close(c->domain);
    free(c);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team) {
        uvas_shmem_fail("shmem_ctx_get_team", UVAS_ERR_INVAL, "team is NULL");
        return 1;
    }
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return uvas_shmem_decline("shmem_ctx_get_team", UVAS_ERR_INVAL,
                                  "ctx is SHMEM_CTX_INVALID") != 0;
    }
    bool ok;
    struct uvas_shmem_ctx *c = find("shmem_ctx_get_team", ctx, &ok);
    *team = !ok ? SHMEM_TEAM_INVALID : c ? c->team : SHMEM_TEAM_WORLD;
    return !ok;
}

/* quiet, fence and destroy of SHMEM_CTX_INVALID do nothing (OpenSHMEM 1.5,
 * 9.5 and 9.13: a program may pass on a context it failed to make, as
 * the specification's own examples do). */
void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    bool ok;
    struct uvas_shmem_ctx *c = find("shmem_ctx_quiet", ctx, &ok);
    if (ok && !c)
        shmem_quiet();
    else if (c && uvas_pe_domain_quiet(c->domain) != UVAS_OK)
        uvas_shmem_report("shmem_ctx_quiet", UVAS_ERR_SYS);
}

/* Ordering within a context is what quiet gives (fence is no weaker here:
 * a put to a peer that is behind on active messages waits for them). */
void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    bool ok;
    struct uvas_shmem_ctx *c = find("shmem_ctx_fence", ctx, &ok);
    if (ok && !c)
        shmem_fence();
    else if (c)
        shmem_ctx_quiet(ctx);
}

/* ---- every operation, in a context ------------------------------------------- */

/* A team-relative PE number as the world's, in *pe; a PE outside the
 * team is reported (false). */
static bool world_pe(const char *call, const struct uvas_shmem_ctx *c, int *pe)
{
    if (!c)
        return true; /* the world's numbering */
    /* A team from PE 0 at stride 1 numbers as the world does, but only
     * its own size of PEs. */
    if (*pe < 0 || *pe >= c->size) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "PE %d is not in the context's team (its PEs "
                        "are 0..%d; a team's context numbers PEs as the team does)",
                        *pe, c->size - 1);
        return false;
    }
    *pe = c->start + *pe * c->stride;
    return true;
}

/* Run the default-context operation with the context's domain as this
 * thread's and pe in the world's numbering; a bad context or PE is
 * reported and the operation not made. */
#define CTX_IN(ctx)                                                                    \
    bool ok_;                                                                          \
    struct uvas_shmem_ctx *c_ = find(__func__, ctx, &ok_);                             \
    if (!ok_ || !world_pe(__func__, c_, &pe))
#define CTX_VOID(FN, PARAMS, ARGS)                                                     \
    void shmem_ctx_##FN PARAMS                                                         \
    {                                                                                  \
        CTX_IN(ctx) return;                                                            \
        unsigned prev_ = uvas_pe_domain_use(c_ ? c_->domain : 0);                      \
        shmem_##FN ARGS;                                                               \
        uvas_pe_domain_use(prev_);                                                     \
    }
#define CTX_RET(T, FN, PARAMS, ARGS)                                                   \
    T shmem_ctx_##FN PARAMS                                                            \
    {                                                                                  \
        CTX_IN(ctx) return (T)0;                                                       \
        unsigned prev_ = uvas_pe_domain_use(c_ ? c_->domain : 0);                      \
        T r_ = shmem_##FN ARGS;                                                        \
        uvas_pe_domain_use(prev_);                                                     \
        return r_;                                                                     \
    }

#define RMA_CTX(NAME, TYPE)                                                                                                                                                                                          \
    CTX_VOID(NAME##_put, (shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe), (dest, source, nelems, pe))                                                                                       \
    CTX_VOID(NAME##_get, (shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe), (dest, source, nelems, pe))                                                                                       \
    CTX_VOID(NAME##_put_nbi, (shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe), (dest, source, nelems, pe))                                                                                   \
    CTX_VOID(NAME##_get_nbi, (shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe), (dest, source, nelems, pe))                                                                                   \
    CTX_VOID(NAME##_p, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                                                                                                                         \
    CTX_RET(TYPE, NAME##_g, (shmem_ctx_t ctx, const TYPE *source, int pe), (source, pe))                                                                                                                             \
    CTX_VOID(NAME##_iput, (shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), (dest, source, dst, sst, nelems, pe))                                              \
    CTX_VOID(NAME##_iget, (shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), (dest, source, dst, sst, nelems, pe))                                              \
    CTX_VOID(NAME##_put_signal, (shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), (dest, source, nelems, sig_addr, signal, sig_op, pe))     \
    CTX_VOID(NAME##_put_signal_nbi, (shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), (dest, source, nelems, sig_addr, signal, sig_op, pe))
#define AMO_FSS_CTX(NAME, TYPE)                                                                                                \
    CTX_RET(TYPE, NAME##_atomic_fetch, (shmem_ctx_t ctx, const TYPE *source, int pe), (source, pe))                            \
    CTX_VOID(NAME##_atomic_set, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                          \
    CTX_RET(TYPE, NAME##_atomic_swap, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                    \
    CTX_VOID(NAME##_atomic_fetch_nbi, (shmem_ctx_t ctx, TYPE *fetch, const TYPE *source, int pe), (fetch, source, pe))         \
    CTX_VOID(NAME##_atomic_swap_nbi, (shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe), (fetch, dest, value, pe))
#define AMO_CTX(NAME, TYPE)                                                                                                                             \
    CTX_RET(TYPE, NAME##_atomic_compare_swap, (shmem_ctx_t ctx, TYPE *dest, TYPE cond, TYPE value, int pe), (dest, cond, value, pe))                    \
    CTX_RET(TYPE, NAME##_atomic_fetch_inc, (shmem_ctx_t ctx, TYPE *dest, int pe), (dest, pe))                                                           \
    CTX_VOID(NAME##_atomic_inc, (shmem_ctx_t ctx, TYPE *dest, int pe), (dest, pe))                                                                      \
    CTX_RET(TYPE, NAME##_atomic_fetch_add, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                                        \
    CTX_VOID(NAME##_atomic_add, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                                                   \
    CTX_VOID(NAME##_atomic_compare_swap_nbi, (shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe), (fetch, dest, cond, value, pe)) \
    CTX_VOID(NAME##_atomic_fetch_inc_nbi, (shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, int pe), (fetch, dest, pe))                                        \
    CTX_VOID(NAME##_atomic_fetch_add_nbi, (shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe), (fetch, dest, value, pe))
#define AMO_BIT_CTX(NAME, TYPE)                                                                                                     \
    CTX_RET(TYPE, NAME##_atomic_fetch_and, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                    \
    CTX_VOID(NAME##_atomic_and, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                               \
    CTX_VOID(NAME##_atomic_fetch_and_nbi, (shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe), (fetch, dest, value, pe)) \
    CTX_RET(TYPE, NAME##_atomic_fetch_or, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                     \
    CTX_VOID(NAME##_atomic_or, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                                \
    CTX_VOID(NAME##_atomic_fetch_or_nbi, (shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe), (fetch, dest, value, pe))  \
    CTX_RET(TYPE, NAME##_atomic_fetch_xor, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                    \
    CTX_VOID(NAME##_atomic_xor, (shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe), (dest, value, pe))                               \
    CTX_VOID(NAME##_atomic_fetch_xor_nbi, (shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe), (fetch, dest, value, pe))
#define SIZED_CTX(BITS, BYTES)                                                                                                                                                                                        \
    CTX_VOID(put##BITS, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe), (dest, source, nelems, pe))                                                                                         \
    CTX_VOID(get##BITS, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe), (dest, source, nelems, pe))                                                                                         \
    CTX_VOID(put##BITS##_nbi, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe), (dest, source, nelems, pe))                                                                                   \
    CTX_VOID(get##BITS##_nbi, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe), (dest, source, nelems, pe))                                                                                   \
    CTX_VOID(iput##BITS, (shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), (dest, source, dst, sst, nelems, pe))                                                \
    CTX_VOID(iget##BITS, (shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), (dest, source, dst, sst, nelems, pe))                                                \
    CTX_VOID(put##BITS##_signal, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), (dest, source, nelems, sig_addr, signal, sig_op, pe))     \
    CTX_VOID(put##BITS##_signal_nbi, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), (dest, source, nelems, sig_addr, signal, sig_op, pe))
UVAS_SHMEM_RMA_TYPES(RMA_CTX)
UVAS_SHMEM_AMO_TYPES(AMO_FSS_CTX)
UVAS_SHMEM_AMO_EXT_TYPES(AMO_FSS_CTX)
UVAS_SHMEM_AMO_TYPES(AMO_CTX)
UVAS_SHMEM_AMO_BIT_TYPES(AMO_BIT_CTX)
UVAS_SHMEM_SIZES(SIZED_CTX)
CTX_VOID(putmem, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe), (dest, source, nelems, pe))
CTX_VOID(getmem, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe), (dest, source, nelems, pe))
CTX_VOID(putmem_nbi, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe), (dest, source, nelems, pe))
CTX_VOID(getmem_nbi, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe), (dest, source, nelems, pe))
CTX_VOID(putmem_signal, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), (dest, source, nelems, sig_addr, signal, sig_op, pe))
CTX_VOID(putmem_signal_nbi, (shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe), (dest, source, nelems, sig_addr, signal, sig_op, pe))
