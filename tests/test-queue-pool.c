/*
 * Queues, events and queue-ordered allocation without a kernel (host
 * functions and copies are queue work too):
 *  - enqueueing returns before the work runs, and work runs in order;
 *  - uvas_free_async then uvas_malloc_async of the same size on the same
 *    queue gives the same memory at once (no sync), and the second owner's
 *    data is intact;
 *  - another queue reuses it only when its pool's policy proves the free's
 *    point passed: after waiting for an event past it (FOLLOW_EVENTS), or
 *    once it has passed (OPPORTUNISTIC); before that it gets new memory;
 *  - the release threshold at sync and uvas_pool_trim_to show in the
 *    pool's usage, and the high watermarks reset;
 *  - an operation that fails (a migration of memory freed before it ran)
 *    skips the rest until the sync, which returns its error and message;
 *    the queue works again after;
 *  - events: query before and after, never recorded, after the queue is
 *    destroyed;
 *  - errors: free_async of uvas_malloc memory, of a stack address, twice;
 *    a pool destroyed with a live allocation; size 0; a NULL queue.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"
#include "uvas_queue.h"


static int order[100];
static atomic_int norder;
static void note(void *arg)
{
    order[atomic_fetch_add(&norder, 1)] = (int)(intptr_t)arg;
}

static void fill(void *arg)
{
    memset(arg, 0x5a, 4096);
}

static void check_order(void)
{
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    struct tu_gate g = TU_GATE;
    CHECK_OK(uvas_queue_host_fn(q, tu_gate_wait, &g));
    for (int i = 0; i < 100; i++)
        CHECK_OK(uvas_queue_host_fn(q, note, (void *)(intptr_t)i));
    CHECK(atomic_load(&norder) == 0, "work ran before the gate opened: enqueue waited");
    tu_gate_open(&g);
    CHECK_OK(uvas_queue_sync(q));
    CHECK_EQ(atomic_load(&norder), 100, "host functions run");
    for (int i = 0; i < 100; i++)
        CHECK_EQ(order[i], i, "in the order enqueued");
    CHECK_OK(uvas_queue_destroy(q));
}

static void check_same_queue_reuse(void)
{
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    struct tu_gate g = TU_GATE;
    CHECK_OK(uvas_queue_host_fn(q, tu_gate_wait, &g)); /* nothing has run */
    char *a = uvas_malloc_async(4000, q);
    CHECK(a != NULL, "uvas_malloc_async: %s", uvas_last_error());
    CHECK_OK(uvas_queue_host_fn(q, fill, a));
    CHECK_OK(uvas_free_async(a, q));
    char *b = uvas_malloc_async(4000, q);
    CHECK(b == a, "the same queue reuses freed memory at once: %p, then %p", a, b);
    static char mine[4096];
    memset(mine, 0x3c, sizeof mine);
    CHECK_OK(uvas_queue_copy(q, b, mine, 4000));
    tu_gate_open(&g);
    CHECK_OK(uvas_queue_sync(q));
    CHECK(tu_find_not(b, 4000, 0x3c) < 0, "the second owner's data, after the first's fill");
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(b, &info));
    CHECK_OK(uvas_free_async(b, q));
    CHECK_OK(uvas_queue_destroy(q));
}

static void check_cross_queue(unsigned reuse)
{
    struct uvas_pool_props props = {UVAS_POOL_UNIFIED, 1u << 30, reuse};
    uvas_pool_t *p;
    CHECK_OK(uvas_pool_create(&props, &p));
    uvas_queue_t *q1, *q2;
    CHECK_OK(uvas_queue_create(&q1));
    CHECK_OK(uvas_queue_create(&q2));
    struct tu_gate g = TU_GATE;
    void *c = uvas_malloc_from_pool_async(8192, p, q1);
    CHECK(c != NULL, "allocation on q1: %s", uvas_last_error());
    CHECK_OK(uvas_queue_host_fn(q1, tu_gate_wait, &g)); /* q1 is stuck before the free */
    CHECK_OK(uvas_free_async(c, q1));
    void *d = uvas_malloc_from_pool_async(8192, p, q2);
    CHECK(d && d != c, "q2 does not get memory q1 may still use");
    uvas_event_t *ev;
    CHECK_OK(uvas_event_create(&ev));
    CHECK_OK(uvas_event_record(ev, q1));
    CHECK_EQ(uvas_event_query(ev), 0, "the event's point has not passed");
    void *e;
    if (reuse & UVAS_POOL_REUSE_FOLLOW_EVENTS) {
        CHECK_OK(uvas_queue_wait_event(q2, ev));
        e = uvas_malloc_from_pool_async(8192, p, q2);
        CHECK(e == c, "after waiting for an event past the free, q2 reuses it");
        tu_gate_open(&g);
    } else {
        tu_gate_open(&g);
        CHECK_OK(uvas_event_sync(ev));
        e = uvas_malloc_from_pool_async(8192, p, q2);
        CHECK(e == c, "once the free's point has passed, q2 reuses it");
    }
    CHECK_OK(uvas_event_sync(ev));
    CHECK_EQ(uvas_event_query(ev), 1, "passed");
    CHECK_OK(uvas_free_async(d, q2));
    CHECK_OK(uvas_free_async(e, q2));
    CHECK_OK(uvas_queue_sync(q2));
    CHECK_OK(uvas_queue_destroy(q1));
    CHECK_OK(uvas_queue_destroy(q2));
    CHECK_EQ(uvas_event_query(ev), 1, "an event outlives its queue");
    uvas_event_destroy(ev);
    CHECK_OK(uvas_pool_destroy(p));
}

static void check_threshold(void)
{
    struct uvas_pool_props props = {UVAS_POOL_HOST, 64 * 1024, UVAS_POOL_REUSE_ALL};
    uvas_pool_t *p;
    CHECK_OK(uvas_pool_create(&props, &p));
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    void *m[8];
    for (int i = 0; i < 8; i++) {
        m[i] = uvas_malloc_from_pool_async(64 * 1024, p, q);
        CHECK(m[i] != NULL, "allocation %d", i);
        CHECK_EQ(tu_residence(m[i]) == UVAS_RES_DEVICE, 0, "a host pool's memory");
    }
    struct uvas_pool_usage u;
    CHECK_OK(uvas_pool_get_usage(p, &u));
    CHECK(u.used == 8 * 65536 && u.reserved == 8 * 65536, "used %zu reserved %zu", u.used,
          u.reserved);
    for (int i = 0; i < 8; i++)
        CHECK_OK(uvas_free_async(m[i], q));
    CHECK_OK(uvas_pool_get_usage(p, &u));
    CHECK(u.used == 0 && u.reserved == 8 * 65536, "after frees: kept until sync");
    CHECK_OK(uvas_queue_sync(q));
    CHECK_OK(uvas_pool_get_usage(p, &u));
    CHECK(u.reserved == 65536, "the sync keeps the threshold (64 KiB): %zu", u.reserved);
    CHECK(u.reserved_high == 8 * 65536 && u.used_high == 8 * 65536, "high watermarks");
    CHECK_OK(uvas_pool_trim_to(p, 0));
    CHECK_OK(uvas_pool_get_usage(p, &u));
    CHECK_EQ(u.reserved, 0, "trimmed to nothing");
    CHECK_OK(uvas_pool_reset_high(p));
    CHECK_OK(uvas_pool_get_usage(p, &u));
    CHECK(u.reserved_high == 0 && u.used_high == 0, "watermarks reset");
    CHECK_OK(uvas_queue_destroy(q));
    CHECK_OK(uvas_pool_destroy(p));
}

static int ran;
static void set_ran(void *arg)
{
    (void)arg;
    ran = 1;
}

static void check_failure(void)
{
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    struct tu_gate g = TU_GATE;
    void *x = uvas_malloc(65536);
    CHECK(x != NULL, "uvas_malloc");
    /* A block of the pool freed on the queue before the failure: the sync
     * gives it back (threshold 0) after the drain, which cleared the
     * drain's message. */
    void *a = uvas_malloc_async(4096, q);
    CHECK(a != NULL, "uvas_malloc_async: %s", uvas_last_error());
    CHECK_OK(uvas_queue_host_fn(q, tu_gate_wait, &g));
    CHECK_OK(uvas_free_async(a, q));
    CHECK_OK(uvas_queue_migrate(q, x, 65536, UVAS_LOC_HOST));
    CHECK_OK(uvas_queue_host_fn(q, set_ran, NULL));
    uvas_free(x); /* before the migration runs: it will fail */
    tu_gate_open(&g);
    CHECK_STATUS(uvas_queue_sync(q), UVAS_ERR_NOT_OWNED);
    CHECK(strstr(uvas_last_error(), "uvas_migrate") || strstr(uvas_last_error(), "live"),
          "the failure's message: %s", uvas_last_error());
    CHECK_EQ(ran, 0, "what followed the failure was skipped");
    CHECK_OK(uvas_queue_host_fn(q, set_ran, NULL));
    CHECK_OK(uvas_queue_sync(q));
    CHECK_EQ(ran, 1, "the queue works again after the sync");
    CHECK_OK(uvas_queue_destroy(q));
}

static void check_errors(void)
{
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    void *plain = uvas_malloc(100);
    CHECK_STATUS(uvas_free_async(plain, q), UVAS_ERR_INVAL);
    CHECK(strstr(uvas_last_error(), "uvas_free"), "names uvas_free: %s", uvas_last_error());
    uvas_free(plain);
    int local;
    CHECK_STATUS(uvas_free_async(&local, q), UVAS_ERR_NOT_OWNED);
    void *a = uvas_malloc_async(100, q);
    CHECK_OK(uvas_free_async(a, q));
    CHECK_STATUS(uvas_free_async(a, q), UVAS_ERR_DOUBLE_FREE);
    CHECK(uvas_malloc_async(0, q) == NULL, "size 0");
    CHECK(uvas_malloc_async(100, NULL) == NULL && strstr(uvas_last_error(), "NULL"),
          "a NULL queue: %s", uvas_last_error());
    struct uvas_pool_props props = {UVAS_POOL_UNIFIED, 0, UVAS_POOL_REUSE_ALL};
    uvas_pool_t *p;
    CHECK_OK(uvas_pool_create(&props, &p));
    void *live = uvas_malloc_from_pool_async(100, p, q);
    CHECK_STATUS(uvas_pool_destroy(p), UVAS_ERR_INVAL);
    CHECK(strstr(uvas_last_error(), "1 allocation"), "names it: %s", uvas_last_error());
    CHECK_OK(uvas_free_async(live, q));
    CHECK_OK(uvas_queue_sync(q));
    CHECK_OK(uvas_pool_destroy(p));
    props.location = 7;
    CHECK_STATUS(uvas_pool_create(&props, &p), UVAS_ERR_INVAL);
    uvas_event_t *ev;
    CHECK_OK(uvas_event_create(&ev));
    CHECK_EQ(uvas_event_query(ev), 1, "a never-recorded event has passed");
    CHECK_OK(uvas_queue_wait_event(q, ev));
    uvas_event_destroy(ev);
    CHECK_STATUS(uvas_queue_host_fn(NULL, set_ran, NULL), UVAS_ERR_INVAL);
    CHECK_OK(uvas_queue_destroy(q));
}

/* A host function that waits for its own queue waited for ever: its sync
 * or destroy, or the sync of an event recorded after it, is refused. */
struct self_wait {
    uvas_queue_t *q;
    uvas_event_t *later;
    uvas_pool_t *pool; /* holds a block this queue frees later */
    int sync_rc, destroy_rc, event_rc, pool_rc;
    char why[256], pool_why[256];
};

static void wait_for_self(void *arg)
{
    struct self_wait *w = arg;
    w->sync_rc = uvas_queue_sync(w->q);
    snprintf(w->why, sizeof w->why, "%s", uvas_last_error());
    w->destroy_rc = uvas_queue_destroy(w->q);
    w->event_rc = uvas_event_sync(w->later);
    w->pool_rc = uvas_pool_destroy(w->pool);
    snprintf(w->pool_why, sizeof w->pool_why, "%s", uvas_last_error());
}

static void check_self_wait(void)
{
    struct self_wait w = {0};
    struct tu_gate g = TU_GATE;
    CHECK_OK(uvas_queue_create(&w.q));
    CHECK_OK(uvas_event_create(&w.later));
    struct uvas_pool_props props = {UVAS_POOL_HOST, SIZE_MAX, UVAS_POOL_REUSE_ALL};
    CHECK_OK(uvas_pool_create(&props, &w.pool));
    /* The function runs only once the event is recorded after it (else
     * the event has no point yet, and its sync has nothing to wait for),
     * and the pool's block is freed at a point after it. */
    CHECK_OK(uvas_queue_host_fn(w.q, tu_gate_wait, &g));
    void *blk = uvas_malloc_from_pool_async(4096, w.pool, w.q);
    CHECK(blk != NULL, "uvas_malloc_from_pool_async: %s", uvas_last_error());
    CHECK_OK(uvas_queue_host_fn(w.q, wait_for_self, &w));
    CHECK_OK(uvas_free_async(blk, w.q));
    CHECK_OK(uvas_event_record(w.later, w.q));
    tu_gate_open(&g);
    CHECK_OK(uvas_queue_sync(w.q));
    CHECK(w.sync_rc == UVAS_ERR_INVAL && strstr(w.why, "own"),
          "uvas_queue_sync from its own host function: %d, '%s'", w.sync_rc, w.why);
    CHECK_EQ(w.destroy_rc, UVAS_ERR_INVAL, "uvas_queue_destroy from its own host function");
    CHECK_EQ(w.event_rc, UVAS_ERR_INVAL, "uvas_event_sync of a later point of its own queue");
    CHECK(w.pool_rc == UVAS_ERR_INVAL && strstr(w.pool_why, "own"),
          "uvas_pool_destroy from a host function of the queue that frees its block later: "
          "%d, '%s'", w.pool_rc, w.pool_why);
    CHECK_OK(uvas_pool_destroy(w.pool)); /* from here, once the free's point passed */
    uvas_event_destroy(w.later);
    CHECK_OK(uvas_queue_destroy(w.q));
}

/* A destroyed queue's handle is refused by every call, as documented:
 * they read the freed queue before (ASan: heap-use-after-free). */
static void check_destroyed(void)
{
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    CHECK_OK(uvas_queue_destroy(q));
    CHECK_STATUS(uvas_queue_sync(q), UVAS_ERR_INVAL);
    CHECK(strstr(uvas_last_error(), "no live queue"), "said: %s", uvas_last_error());
    CHECK_STATUS(uvas_queue_destroy(q), UVAS_ERR_INVAL);
    CHECK_STATUS(uvas_queue_host_fn(q, set_ran, NULL), UVAS_ERR_INVAL);
    CHECK(uvas_malloc_async(100, q) == NULL, "uvas_malloc_async on a destroyed queue");
    uvas_event_t *ev;
    CHECK_OK(uvas_event_create(&ev));
    CHECK_STATUS(uvas_event_record(ev, q), UVAS_ERR_INVAL);
    uvas_event_destroy(ev);
}

int main(void)
{
    tu_deadline(60);
    tu_init_range("256M", "64K");
    check_order();
    check_same_queue_reuse();
    check_cross_queue(UVAS_POOL_REUSE_FOLLOW_EVENTS);
    check_cross_queue(UVAS_POOL_REUSE_OPPORTUNISTIC);
    check_threshold();
    check_failure();
    check_errors();
    check_self_wait();
    check_destroyed();
    printf("test-queue-pool: order, same-queue reuse, cross-queue reuse by events and by "
           "passed points, threshold and trim, failures, errors, waits on itself: ok\n");
    return 0;
}
