/*
 * UVAS_QUEUE_CHECK=1: work enqueued on a queue that names pool memory
 * outside its queue lifetime is refused at the enqueue, with a message
 * that says which rule it broke:
 *  - memory freed by uvas_free_async before the work was enqueued (a copy,
 *    a migration, a kernel argument word);
 *  - an allocation made on another queue at a point this queue is not
 *    ordered after (until it waits for an event past it, or the point has
 *    passed);
 *  - a range that runs past its allocation.
 * Memory of no pool and correct uses pass; without the variable nothing
 * is checked (the same misuse is accepted).
 */
#include <pthread.h>
#include <string.h>

#include "check.h"
#include "uvas_queue.h"


static void refused(int st, const char *word, const char *what)
{
    CHECK(st == UVAS_ERR_INVAL && strstr(uvas_last_error(), word),
          "%s: %s '%s' (expected UVAS_ERR_INVAL saying '%s')", what, uvas_strerror(st),
          uvas_last_error(), word);
    printf("  %s: %s\n", what, uvas_last_error());
}

static char local[4096];

static int checked(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_QUEUE_CHECK", "1");
    tu_init_env();
    uvas_queue_t *q1, *q2;
    CHECK_OK(uvas_queue_create(&q1));
    CHECK_OK(uvas_queue_create(&q2));

    /* Allocated on q1 behind a closed gate: its point has not passed. */
    struct tu_gate g = TU_GATE;
    CHECK_OK(uvas_queue_host_fn(q1, tu_gate_wait, &g));
    char *x = uvas_malloc_async(4096, q1);
    CHECK(x != NULL, "uvas_malloc_async: %s", uvas_last_error());
    refused(uvas_queue_copy(q2, x, local, 64), "not ordered after",
            "a copy on another queue before the allocation's point");
    CHECK_OK(uvas_queue_copy(q1, x, local, 64)); /* its own queue: ordered */
    uvas_event_t *ev;
    CHECK_OK(uvas_event_create(&ev));
    CHECK_OK(uvas_event_record(ev, q1));
    CHECK_OK(uvas_queue_wait_event(q2, ev));
    CHECK_OK(uvas_queue_copy(q2, local, x, 64)); /* after an event past it */
    refused(uvas_queue_copy(q1, x + 4000, local, 200), "runs past its allocation",
            "a copy past the allocation's end");
    /* The bound is the bytes asked for, not the pool's size class (512
     * here): a copy past 300 bytes is refused too. */
    char *s300 = uvas_malloc_async(300, q1);
    CHECK(s300 != NULL, "uvas_malloc_async(300): %s", uvas_last_error());
    /* (from a buffer of its own: q2 writes `local` meanwhile) */
    static char src[512];
    CHECK_OK(uvas_queue_copy(q1, s300, src, 300));
    refused(uvas_queue_copy(q1, s300, src, 301), "runs past its allocation",
            "a copy past the bytes asked for, inside the class");
    /* A pointer inside the allocation is not the allocation's. */
    CHECK(uvas_free_async(s300 + 8, q1) == UVAS_ERR_INVAL &&
              strstr(uvas_last_error(), "inside the allocation"),
          "uvas_free_async of an inner pointer: %s", uvas_last_error());
    CHECK_OK(uvas_free_async(s300, q1));
    tu_gate_open(&g);
    CHECK_OK(uvas_queue_sync(q1));
    CHECK_OK(uvas_queue_sync(q2));

    /* A third queue, once the point has passed: fine without an event. */
    uvas_queue_t *q3;
    CHECK_OK(uvas_queue_create(&q3));
    CHECK_OK(uvas_queue_copy(q3, x, local, 64));
    CHECK_OK(uvas_queue_sync(q3));

    /* After the free: every kind of use refused. */
    CHECK_OK(uvas_free_async(x, q1));
    refused(uvas_queue_copy(q1, x, local, 8), "freed by uvas_free_async",
            "a copy after the free");
    refused(uvas_queue_copy(q2, local, x + 100, 8), "freed by uvas_free_async",
            "a copy from it on another queue after the free");
    uint64_t args[2] = {42, (uint64_t)(uintptr_t)(x + 8)};
    const uint32_t groups[3] = {1, 1, 1};
    /* Refused before the kernel is looked at: no kernel needed here. */
    refused(uvas_queue_launch(q1, (uvas_kernel_t *)local, groups, args, sizeof args, 0),
            "freed by uvas_free_async", "a kernel argument pointing into it after the free");
    char *y = uvas_malloc_async((size_t)1 << 20, q1);
    CHECK(y != NULL && y != x, "uvas_malloc_async: %s", uvas_last_error());
    CHECK_OK(uvas_free_async(y, q1));
    refused(uvas_queue_migrate(q1, y, (size_t)1 << 20, UVAS_LOC_HOST),
            "freed by uvas_free_async", "a prefetch after the free");

    /* Memory of no pool is not this check's. */
    char *plain = uvas_malloc(4096);
    CHECK_OK(uvas_queue_copy(q2, plain, local, 4096));
    CHECK_OK(uvas_queue_sync(q2));
    uvas_free(plain);
    uvas_event_destroy(ev);
    CHECK_OK(uvas_queue_destroy(q1));
    CHECK_OK(uvas_queue_destroy(q2));
    CHECK_OK(uvas_queue_destroy(q3));
    CHECK_OK(uvas_finalize());
    return 0;
}

/* Without UVAS_QUEUE_CHECK the same misuse is enqueued (and copies bytes
 * of memory the pool still holds: a bug the check exists to find). */
static int unchecked(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_init_env();
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    char *x = uvas_malloc_async(4096, q);
    CHECK(x != NULL, "uvas_malloc_async");
    CHECK_OK(uvas_free_async(x, q));
    CHECK_OK(uvas_queue_copy(q, x, local, 8));
    CHECK_OK(uvas_queue_destroy(q));
    CHECK_OK(uvas_finalize());
    return 0;
}

int main(void)
{
    tu_deadline(60);
    int rc = tu_run_child(checked, NULL, 30);
    if (rc == 0)
        rc = tu_run_child(unchecked, NULL, 30);
    return rc;
}
