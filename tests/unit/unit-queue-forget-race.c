/*
 * Three threads wait on events of short-lived queues, each destroyed
 * right after, on one long-lived queue: its dependency table fills over
 * and over, and the threads trim it at once. One trim used to drop (and
 * free) a dead queue that another was about to lock: a use after free,
 * which AddressSanitizer reports (heap-use-after-free in forget_gone) and
 * which this test, run in the sanitizer pass, fails on. Also in the
 * ThreadSanitizer pass.
 */
#include "../check.h"
#include "queue/queue.h"
#include "uvas_queue.h"

#define ROUNDS 10000
#define THREADS 3

static uvas_queue_t *lived;
static double end_s;
static atomic_int done;

/* Bounded by rounds and by time (at least 1000 rounds per thread): a
   sanitizer's build on a loaded machine creates queues many times slower. */
static void *side(void *arg)
{
    (void)arg;
    int r;
    for (r = 0; r < ROUNDS && (r < 1000 || tu_now_s() < end_s); r++) {
        uvas_queue_t *s;
        uvas_event_t *ev;
        CHECK_OK(uvas_queue_create(&s));
        CHECK_OK(uvas_event_create(&ev));
        CHECK_OK(uvas_event_record(ev, s));
        CHECK_OK(uvas_queue_wait_event(lived, ev));
        uvas_event_destroy(ev);
        CHECK_OK(uvas_queue_destroy(s));
    }
    atomic_fetch_add(&done, r);
    return NULL;
}

int main(void)
{
    tu_deadline(120);
    tu_init_range("64M", "64K");
    CHECK_OK(uvas_queue_create(&lived));
    end_s = tu_now_s() + 20;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, side, NULL) == 0, "pthread_create");
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_OK(uvas_queue_sync(lived));
    size_t kept = lived->ndeps;
    /* Trimmed, not kept whole (how much stays depends on how far the
     * destroyed queues' workers lag: hundreds under ThreadSanitizer). */
    int total = atomic_load(&done);
    CHECK(kept < (size_t)total / 4, "the long-lived queue keeps %zu entries after %d "
          "short-lived queues, all destroyed", kept, total);
    CHECK_OK(uvas_queue_destroy(lived));
    CHECK_OK(uvas_finalize());
    printf("unit-queue-forget-race: %d short-lived queues on %d threads, %zu entries kept: ok\n",
           total, THREADS, kept);
    return 0;
}
