/*
 * Ordering, barriers and point-to-point synchronisation. Waiting spins on
 * acquire loads of the local variable: peers' puts and AMOs land in this
 * PE's memory (the PE layer serves active messages on its own thread), so
 * the waiting PE need not call into the PE layer. Jobs often run more PEs
 * than cores, so a waiter yields the CPU after a short spin.
 */
#include <stdbool.h>
#include <stdint.h>

#include "shmem.h"
#include "transport/pe/pe.h"
#include "transport/shmem/error.h"
#include "transport/shmem/internal.h"
#include "uvas.h"

#define SPINS_BEFORE_YIELD 64

/* A turn of a wait for peers' writes: spins, then the PE layer's turns
 * (a yield, and now and then a check that the node's PEs live: a flag a
 * dead PE will never set ends the job instead of the wait going on for
 * ever). */
static void backoff(unsigned *spins)
{
    if (*spins < SPINS_BEFORE_YIELD) {
        ++*spins;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    } else {
        uvas_pe_wait_turn((*spins)++);
        if (*spins < SPINS_BEFORE_YIELD) /* wrapped */
            *spins = SPINS_BEFORE_YIELD;
    }
}

static void check(const char *call, int st)
{
    if (st != UVAS_OK)
        uvas_shmem_report(call, st);
}

void shmem_fence(void)
{
    check(__func__, uvas_pe_fence());
}

void shmem_quiet(void)
{
    check(__func__, uvas_pe_quiet());
}

void shmem_barrier_all(void)
{
    check(__func__, uvas_pe_barrier_all());
}

void shmem_sync_all(void)
{
    check(__func__, uvas_pe_sync_all());
}

int shmem_team_sync(shmem_team_t team)
{
    struct uvas_shmem_team *t = uvas_shmem_team_of(__func__, team);
    if (!t)
        return 1;
    int st = uvas_shmem_team_sync(t);
    check(__func__, st);
    return st != UVAS_OK;
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct uvas_shmem_team t;
    if (uvas_shmem_active_set(__func__, PE_start, logPE_stride, PE_size, pSync, &t) != UVAS_OK)
        return;
    check(__func__, uvas_shmem_team_barrier(&t));
    uvas_shmem_active_set_done(&t);
}

void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct uvas_shmem_team t;
    if (uvas_shmem_active_set(__func__, PE_start, logPE_stride, PE_size, pSync, &t) != UVAS_OK)
        return;
    check(__func__, uvas_shmem_team_sync(&t));
    uvas_shmem_active_set_done(&t);
}

/* ---- wait and test --------------------------------------------------------- */

/* A wait or test over ivars[0..nelems): sat(w, i) loads ivars[i] and
 * compares it with values[vector ? i : 0]. */
struct waitset {
    const char *call;
    void *ivars;
    size_t nelems;
    const int *status;   /* nonzero entries are left out; may be NULL */
    int cmp;
    const void *values;
    bool vector;
    bool (*sat)(const struct waitset *w, size_t i);
};

static bool cmp_valid(int cmp)
{
    return cmp == SHMEM_CMP_EQ || cmp == SHMEM_CMP_NE || cmp == SHMEM_CMP_GT ||
           cmp == SHMEM_CMP_GE || cmp == SHMEM_CMP_LT || cmp == SHMEM_CMP_LE;
}

/* Bad input is reported once, before waiting, not on every spin. */
static bool ws_valid(const struct waitset *w, size_t elem)
{
    if (!cmp_valid(w->cmp)) {
        uvas_shmem_fail(w->call, UVAS_ERR_INVAL, "comparison %d is not one of "
                        "SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE", w->cmp);
        return false;
    }
    if (w->nelems == 0)
        return true;
    size_t bytes;
    if (!uvas_shmem_bytes(w->call, w->nelems, elem, &bytes))
        return false;
    int st = uvas_pe_check(w->call, w->ivars, bytes, uvas_pe_me());
    if (st != UVAS_OK) {
        uvas_shmem_report(w->call, st);
        return false;
    }
    return true;
}

static bool enabled(const struct waitset *w, size_t i)
{
    return !w->status || w->status[i] == 0;
}

/* How many enabled entries satisfy; their indices into indices (if not
 * NULL); *live gets how many are enabled. */
static size_t scan(const struct waitset *w, size_t *indices, size_t *live)
{
    size_t hits = 0, on = 0;
    for (size_t i = 0; i < w->nelems; i++) {
        if (!enabled(w, i))
            continue;
        on++;
        if (w->sat(w, i)) {
            if (indices)
                indices[hits] = i;
            hits++;
        }
    }
    *live = on;
    return hits;
}

/* Where this thread's next _any scan starts: one past the index the last
 * returned, so that repeated calls return every index that matches, not
 * only the lowest (a program that serves the index it gets and waits
 * again must not starve the others). */
static _Thread_local size_t any_next;

static size_t first_hit(const struct waitset *w, size_t *live)
{
    size_t on = 0, n = w->nelems, start = n ? any_next % n : 0, hit = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        size_t i = (start + k) % n;
        if (!enabled(w, i))
            continue;
        on++;
        if (hit == SIZE_MAX && w->sat(w, i))
            hit = i;
    }
    *live = on;
    if (hit != SIZE_MAX)
        any_next = hit + 1;
    return hit;
}

static int test_all(const struct waitset *w)
{
    size_t live, hits = scan(w, NULL, &live);
    return hits == live;
}

static void wait_all(const struct waitset *w)
{
    unsigned spins = 0;
    for (size_t i = 0; i < w->nelems; i++)
        while (enabled(w, i) && !w->sat(w, i))
            backoff(&spins);
}

static size_t wait_any(const struct waitset *w)
{
    unsigned spins = 0;
    for (;;) {
        size_t live, i = first_hit(w, &live);
        if (i != SIZE_MAX || live == 0)
            return i;
        backoff(&spins);
    }
}

static size_t wait_some(const struct waitset *w, size_t *indices)
{
    unsigned spins = 0;
    for (;;) {
        size_t live, hits = scan(w, indices, &live);
        if (hits || live == 0)
            return hits;
        backoff(&spins);
    }
}

#define COMPARE(cur, cmp, ref)                                                     \
    ((cmp) == SHMEM_CMP_EQ ? (cur) == (ref) : (cmp) == SHMEM_CMP_NE ? (cur) != (ref) : \
     (cmp) == SHMEM_CMP_GT ? (cur) > (ref) : (cmp) == SHMEM_CMP_GE ? (cur) >= (ref) : \
     (cmp) == SHMEM_CMP_LT ? (cur) < (ref) : (cur) <= (ref))

#define WS(NAME, ivars_, nelems_, status_, cmp_, values_, vector_)                 \
    struct waitset w = { __func__, (void *)(ivars_), nelems_, status_, cmp_, values_, \
                         vector_, sat_##NAME }

#define P2P(NAME, TYPE)                                                            \
    static bool sat_##NAME(const struct waitset *w, size_t i)                      \
    {                                                                              \
        TYPE cur = __atomic_load_n((TYPE *)w->ivars + i, __ATOMIC_ACQUIRE);        \
        TYPE ref = ((const TYPE *)w->values)[w->vector ? i : 0];                   \
        return COMPARE(cur, w->cmp, ref);                                          \
    }                                                                              \
    void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value)            \
    {                                                                              \
        WS(NAME, ivar, 1, NULL, cmp, &cmp_value, false);                           \
        if (ws_valid(&w, sizeof(TYPE)))                                            \
            wait_all(&w);                                                          \
    }                                                                              \
    void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status, \
                                       int cmp, TYPE cmp_value)                    \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, &cmp_value, false);                   \
        if (ws_valid(&w, sizeof(TYPE)))                                            \
            wait_all(&w);                                                          \
    }                                                                              \
    size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status, \
                                         int cmp, TYPE cmp_value)                  \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, &cmp_value, false);                   \
        return ws_valid(&w, sizeof(TYPE)) ? wait_any(&w) : SIZE_MAX;               \
    }                                                                              \
    size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices, \
                                          const int *status, int cmp, TYPE cmp_value) \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, &cmp_value, false);                   \
        return ws_valid(&w, sizeof(TYPE)) ? wait_some(&w, indices) : 0;            \
    }                                                                              \
    void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,          \
                                              const int *status, int cmp,          \
                                              TYPE *cmp_values)                    \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, cmp_values, true);                    \
        if (ws_valid(&w, sizeof(TYPE)))                                            \
            wait_all(&w);                                                          \
    }                                                                              \
    size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,        \
                                                const int *status, int cmp,        \
                                                TYPE *cmp_values)                  \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, cmp_values, true);                    \
        return ws_valid(&w, sizeof(TYPE)) ? wait_any(&w) : SIZE_MAX;               \
    }                                                                              \
    size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,       \
                                                 size_t *indices, const int *status, \
                                                 int cmp, TYPE *cmp_values)        \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, cmp_values, true);                    \
        return ws_valid(&w, sizeof(TYPE)) ? wait_some(&w, indices) : 0;            \
    }                                                                              \
    int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value)                   \
    {                                                                              \
        WS(NAME, ivar, 1, NULL, cmp, &cmp_value, false);                           \
        return ws_valid(&w, sizeof(TYPE)) && test_all(&w);                         \
    }                                                                              \
    int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status,     \
                                int cmp, TYPE cmp_value)                           \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, &cmp_value, false);                   \
        return ws_valid(&w, sizeof(TYPE)) && test_all(&w);                         \
    }                                                                              \
    size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status,  \
                                   int cmp, TYPE cmp_value)                        \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, &cmp_value, false);                   \
        size_t live;                                                               \
        return ws_valid(&w, sizeof(TYPE)) ? first_hit(&w, &live) : SIZE_MAX;       \
    }                                                                              \
    size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,   \
                                    const int *status, int cmp, TYPE cmp_value)    \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, &cmp_value, false);                   \
        size_t live;                                                               \
        return ws_valid(&w, sizeof(TYPE)) ? scan(&w, indices, &live) : 0;          \
    }                                                                              \
    int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status, \
                                       int cmp, TYPE *cmp_values)                  \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, cmp_values, true);                    \
        return ws_valid(&w, sizeof(TYPE)) && test_all(&w);                         \
    }                                                                              \
    size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems,              \
                                          const int *status, int cmp,              \
                                          TYPE *cmp_values)                        \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, cmp_values, true);                    \
        size_t live;                                                               \
        return ws_valid(&w, sizeof(TYPE)) ? first_hit(&w, &live) : SIZE_MAX;       \
    }                                                                              \
    size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems,             \
                                           size_t *indices, const int *status,     \
                                           int cmp, TYPE *cmp_values)              \
    {                                                                              \
        WS(NAME, ivars, nelems, status, cmp, cmp_values, true);                    \
        size_t live;                                                               \
        return ws_valid(&w, sizeof(TYPE)) ? scan(&w, indices, &live) : 0;          \
    }
UVAS_SHMEM_P2P_TYPES(P2P)

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    struct waitset w = { __func__, sig_addr, 1, NULL, cmp, &cmp_value, false, NULL };
    if (!ws_valid(&w, sizeof *sig_addr))
        return 0;
    unsigned spins = 0;
    for (;;) {
        uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
        if (COMPARE(v, cmp, cmp_value))
            return v;
        backoff(&spins);
    }
}

#define DEPRECATED_WAIT(NAME, TYPE)                                                \
    void shmem_##NAME##_wait(TYPE *ivar, TYPE cmp_value)                           \
    {                                                                              \
        shmem_##NAME##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                  \
    }
DEPRECATED_WAIT(short, short)
DEPRECATED_WAIT(int, int)
DEPRECATED_WAIT(long, long)
DEPRECATED_WAIT(longlong, long long)
