/*
 * Kernels on queues (include/uvas_queue.h), on memory from
 * uvas_malloc_async:
 *  - a kernel writes x, x is freed on the queue, and an allocation of the
 *    same size on the same queue gets the same blocks without a sync; a
 *    kernel on the second owner's data gives the second owner's result
 *    (copies, launches and the reuse all in queue order);
 *  - a queue-ordered prefetch to the device followed by a kernel: the
 *    kernel's result is right and the blocks are on the device;
 *  - a host function on another queue, ordered after the first queue's
 *    kernel by an event, sees the kernel's writes;
 *  - launches waiting behind a busy queue (1100, behind a host function
 *    held until all are enqueued) run in two submissions (1024, then 76),
 *    each increment landing once, in order with a copy after them.
 */
#include <string.h>

#include "check.h"
#include "uvas_queue.h"

struct args {
    uint64_t x;
    uint32_t n, by;
};

#define N 65536u

static uint32_t seen;
static void peek(void *arg)
{
    seen = *(volatile uint32_t *)arg;
}

static void launch_n(uvas_queue_t *q, uvas_kernel_t *k, uint32_t *x, uint32_t n, uint32_t by)
{
    struct args a = {(uintptr_t)x, n, by};
    CHECK_OK(uvas_queue_launch(q, k, (uint32_t[3]){(n + 63) / 64, 1, 1}, &a, sizeof a, 0));
}

static void launch(uvas_queue_t *q, uvas_kernel_t *k, uint32_t *x, uint32_t by)
{
    launch_n(q, k, x, N, by);
}

int main(void)
{
    tu_init_device("256M", "64K");
    uvas_kernel_t *k = tu_kernel("inc");
    uvas_queue_t *q, *q2;
    CHECK_OK(uvas_queue_create(&q));
    CHECK_OK(uvas_queue_create(&q2));
    static uint32_t init[N], init2[N], out[N];
    for (uint32_t i = 0; i < N; i++) {
        init[i] = i;
        init2[i] = 3 * i;
    }

    /* ordering and same-queue reuse */
    uint32_t *x = uvas_malloc_async(N * 4, q);
    CHECK(x != NULL, "uvas_malloc_async: %s", uvas_last_error());
    CHECK_OK(uvas_queue_copy(q, x, init, N * 4));
    launch(q, k, x, 1);
    launch(q, k, x, 1);
    CHECK_OK(uvas_queue_copy(q, out, x, N * 4));
    CHECK_OK(uvas_free_async(x, q));
    uint32_t *y = uvas_malloc_async(N * 4, q);
    CHECK(y == x, "the same blocks at once on the same queue: %p then %p", (void *)x,
          (void *)y);
    static uint32_t out2[N];
    CHECK_OK(uvas_queue_copy(q, y, init2, N * 4));
    launch(q, k, y, 5);
    CHECK_OK(uvas_queue_copy(q, out2, y, N * 4));
    CHECK_OK(uvas_queue_sync(q));
    for (uint32_t i = 0; i < N; i++) {
        CHECK(out[i] == i + 2, "first owner: out[%u] = %u, expected %u", i, out[i], i + 2);
        CHECK(out2[i] == 3 * i + 5, "second owner: out2[%u] = %u, expected %u", i, out2[i],
              3 * i + 5);
    }

    /* queue-ordered prefetch, then a kernel */
    uint32_t *z = uvas_malloc_async(N * 4, q);
    CHECK(z != NULL && z != y, "a second live allocation");
    CHECK_OK(uvas_queue_migrate(q, z, N * 4, UVAS_LOC_DEVICE));
    launch(q, k, z, 7);
    CHECK_OK(uvas_queue_sync(q));
    tu_expect_blocks(z, N * 4, UVAS_RES_DEVICE, "prefetched to the device, then used there");
    CHECK_OK(uvas_queue_copy(q, out, z, N * 4));
    CHECK_OK(uvas_queue_sync(q));
    for (uint32_t i = 0; i < N; i++)
        CHECK(out[i] == 7, "z[%u] = %u after the kernel on zero memory, expected 7", i, out[i]);

    /* across queues, by an event */
    launch(q, k, y, 100);
    uvas_event_t *ev;
    CHECK_OK(uvas_event_create(&ev));
    CHECK_OK(uvas_event_record(ev, q));
    CHECK_OK(uvas_queue_wait_event(q2, ev));
    CHECK_OK(uvas_queue_host_fn(q2, peek, &y[10]));
    CHECK_OK(uvas_queue_sync(q2));
    CHECK(seen == 3 * 10 + 5 + 100, "q2 saw %u after the event, expected %u", seen,
          3 * 10 + 5 + 100);

    /* a backlog of launches runs in few submissions; one workgroup each,
       since what is counted is launches (lavapipe's per-workgroup
       allocations make a full grid 1100 times slow under ASan) */
    struct tu_gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    CHECK_OK(uvas_queue_host_fn(q, tu_gate_wait, &gate));
    enum { BACKLOG = 1100 };
    enum { HEAD = 64 };
    for (uint32_t i = 0; i < BACKLOG; i++)
        launch_n(q, k, z, HEAD, 1);
    CHECK_OK(uvas_queue_copy(q, out, z, N * 4));
    struct uvas_stats s0 = tu_stats();
    tu_gate_open(&gate);
    CHECK_OK(uvas_queue_sync(q));
    struct uvas_stats s1 = tu_stats();
    for (uint32_t i = 0; i < N; i++) {
        uint32_t want = i < HEAD ? 7 + BACKLOG : 7;
        CHECK(out[i] == want, "z[%u] = %u after %d increments of the first %d, expected %u", i,
              out[i], BACKLOG, HEAD, want);
    }
    CHECK_EQ(s1.kernel_launches - s0.kernel_launches, BACKLOG, "launches");
    CHECK_EQ(s1.kernel_submissions - s0.kernel_submissions, 2, "submissions of 1024 and 76");

    CHECK_OK(uvas_free_async(y, q));
    CHECK_OK(uvas_free_async(z, q));
    CHECK_OK(uvas_queue_destroy(q));
    CHECK_OK(uvas_queue_destroy(q2));
    uvas_event_destroy(ev);
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    printf("test-gpu-queue: ordering, same-queue reuse, prefetch then kernel, events, "
           "backlogs in few submissions: ok\n");
    return 0;
}
