/*
 * uvas_finalize runs what the queues hold first: work enqueued before it
 * (a copy into the range, a migration, host functions) runs while the
 * range is still there, and its outcome is the queue's next sync's, not
 * lost (a copy into an unmapped range, a migration refused for want of
 * uvas, both gone unsaid). A host function that finalizes, which would
 * wait for its own queue, is refused; its queue goes on.
 */
#include <string.h>

#include "check.h"
#include "uvas_queue.h"

#define SZ (256 * 1024)

static atomic_int stage;
static unsigned char seen[SZ];
static unsigned char *dst;
static struct tu_gate gate = TU_GATE;

/* Held at the gate until a thread opens it, a while after uvas_finalize
 * was called: the queue's work is still ahead when the finalize starts. */
static void slow(void *arg)
{
    (void)arg;
    tu_gate_wait(&gate);
    atomic_store(&stage, 1);
}

static void *open_later(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    tu_gate_open(&gate);
    return NULL;
}

static void quick(void *arg)
{
    (void)arg;
}

static void look(void *arg)
{
    (void)arg;
    memcpy(seen, dst, SZ); /* the copy's bytes, read while the range is up */
    atomic_store(&stage, 2);
}

static int inner_rc;
static char inner_msg[512];

static void finalize_inside(void *arg)
{
    (void)arg;
    inner_rc = uvas_finalize();
    snprintf(inner_msg, sizeof inner_msg, "%s", uvas_last_error());
}

int main(void)
{
    tu_deadline(60);
    tu_init_range("64M", "64K");
    uvas_queue_t *q, *idle;
    CHECK_OK(uvas_queue_create(&q));
    CHECK_OK(uvas_queue_create(&idle)); /* one with nothing to run */
    static unsigned char src[SZ];
    for (size_t i = 0; i < SZ; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    dst = uvas_malloc(SZ);
    CHECK(dst != NULL, "uvas_malloc: %s", uvas_last_error());
    memset(dst, 0, SZ);

    /* Behind a slow host function, so that uvas_finalize comes first. */
    CHECK_OK(uvas_queue_host_fn(q, slow, NULL));
    CHECK_OK(uvas_queue_copy(q, dst, src, SZ));
    CHECK_OK(uvas_queue_migrate(q, dst, SZ, UVAS_LOC_HOST));
    CHECK_OK(uvas_queue_host_fn(q, look, NULL));
    CHECK_EQ(atomic_load(&stage), 0, "the gated host function before uvas_finalize");
    pthread_t opener;
    CHECK(pthread_create(&opener, NULL, open_later, NULL) == 0, "pthread_create");
    CHECK_OK(uvas_finalize());
    pthread_join(opener, NULL);
    CHECK_EQ(atomic_load(&stage), 2, "the queue's work when uvas_finalize returned");
    CHECK(memcmp(seen, src, SZ) == 0, "the copy enqueued before uvas_finalize did not land");
    CHECK_OK(uvas_queue_sync(q)); /* the migration ran with uvas up */
    CHECK_OK(uvas_queue_sync(idle));

    /* From a host function: refused, and the queue goes on. */
    tu_init_range("64M", "64K");
    CHECK_OK(uvas_queue_host_fn(q, finalize_inside, NULL));
    CHECK_OK(uvas_queue_host_fn(q, quick, NULL));
    CHECK_OK(uvas_queue_sync(q));
    CHECK_EQ(inner_rc, UVAS_ERR_INVAL, "uvas_finalize from a host function of a queue");
    CHECK(strstr(inner_msg, "host function") != NULL, "its message: '%s'", inner_msg);
    void *p = uvas_malloc(4096);
    CHECK(p != NULL, "uvas was finalized by the refused call: %s", uvas_last_error());
    uvas_free(p);

    CHECK_OK(uvas_queue_destroy(q));
    CHECK_OK(uvas_queue_destroy(idle));
    CHECK_OK(uvas_finalize());
    printf("test-queue-finalize: work enqueued before uvas_finalize ran first; a host "
           "function's finalize refused: ok\n");
    return 0;
}
