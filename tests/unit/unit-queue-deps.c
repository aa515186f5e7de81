/*
 * A long-lived queue that waits on events of many short-lived queues,
 * each destroyed after: it keeps an entry (and a reference) for a queue
 * only while that queue lives. Before, it kept every one until it was
 * destroyed itself: 300 rounds left 300 dead queues' memory behind. Pool
 * memory freed on a dead queue still serves the long-lived one (its free
 * point passed). Queues that stay alive, waited on first, do not hide the
 * dead ones behind them (only the first 64 entries were looked at: behind
 * 100 live ones, every dead one was kept).
 */
#include "../check.h"
#include "queue/queue.h"
#include "uvas_queue.h"

#define ROUNDS 300
#define LIVE 100

static void nothing(void *arg)
{
    (void)arg;
}

int main(void)
{
    tu_deadline(60);
    tu_init_range("64M", "64K");
    uvas_queue_t *lived;
    CHECK_OK(uvas_queue_create(&lived));
    struct uvas_pool_props props = {UVAS_POOL_HOST, SIZE_MAX, UVAS_POOL_REUSE_FOLLOW_EVENTS};
    uvas_pool_t *pool;
    CHECK_OK(uvas_pool_create(&props, &pool));
    uvas_queue_t *live[LIVE];
    for (int i = 0; i < LIVE; i++) {
        uvas_event_t *ev;
        CHECK_OK(uvas_queue_create(&live[i]));
        CHECK_OK(uvas_event_create(&ev));
        CHECK_OK(uvas_event_record(ev, live[i]));
        CHECK_OK(uvas_queue_wait_event(lived, ev));
        uvas_event_destroy(ev);
    }
    for (int r = 0; r < ROUNDS; r++) {
        uvas_queue_t *s;
        uvas_event_t *ev;
        CHECK_OK(uvas_queue_create(&s));
        CHECK_OK(uvas_event_create(&ev));
        void *p = uvas_malloc_from_pool_async(4096, pool, s);
        CHECK(p != NULL, "uvas_malloc_from_pool_async: %s", uvas_last_error());
        CHECK_OK(uvas_queue_host_fn(s, nothing, NULL));
        CHECK_OK(uvas_free_async(p, s));
        CHECK_OK(uvas_event_record(ev, s));
        CHECK_OK(uvas_queue_wait_event(lived, ev));
        CHECK_OK(uvas_queue_destroy(s));
        uvas_event_destroy(ev);
        /* The block freed on the dead queue serves the long-lived one. */
        void *q = uvas_malloc_from_pool_async(4096, pool, lived);
        CHECK(q != NULL, "round %d: uvas_malloc_from_pool_async on the long-lived queue: %s", r,
              uvas_last_error());
        CHECK(q == p, "round %d: the long-lived queue got %p, not the block %p freed on the "
              "queue it waited for", r, q, p);
        CHECK_OK(uvas_free_async(q, lived));
    }
    CHECK_OK(uvas_queue_sync(lived));
    size_t kept = lived->ndeps;
    CHECK(kept <= LIVE + 64, "the long-lived queue keeps %zu entries for %d live queues and "
          "%d destroyed since: dead ones are never freed while it lives", kept, LIVE, ROUNDS);
    for (int i = 0; i < LIVE; i++)
        CHECK_OK(uvas_queue_destroy(live[i]));
    CHECK_OK(uvas_queue_destroy(lived));
    CHECK_OK(uvas_pool_destroy(pool));
    CHECK_OK(uvas_finalize());
    printf("unit-queue-deps: %d short-lived queues waited on, %zu entries kept: ok\n", ROUNDS,
           kept);
    return 0;
}
