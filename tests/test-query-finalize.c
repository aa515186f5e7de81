/*
 * uvas_residency_map and uvas_query_range on one thread while another
 * cycles uvas_init, an allocation and uvas_finalize: a finalize waits for
 * the range queries in flight (they are counted in), so they answer or
 * fail with UVAS_ERR_NOT_INIT, never fault. uvas_residency_map was not
 * counted in and read the block table after the teardown released it
 * (SIGSEGV within a few hundred cycles; found by review).
 */
#include "check.h"

static char *_Atomic p;
static atomic_int stop;
static atomic_long calls, answered;

static void *reader(void *arg)
{
    (void)arg;
    static uint8_t map[1 << 16];
    while (!atomic_load(&stop)) {
        char *q = atomic_load(&p);
        if (!q)
            continue;
        size_t n;
        struct uvas_range_info ri;
        int a = uvas_residency_map(q, (size_t)1 << 30, map, sizeof map, &n);
        int b = uvas_query_range(q, (size_t)1 << 30, &ri);
        /* NOT_OWNED: the pointer of an earlier cycle, outside this one's
         * range (a base the kernel chooses moves between cycles). */
        CHECK(a == UVAS_OK || a == UVAS_ERR_NOT_INIT || a == UVAS_ERR_NOT_OWNED,
              "uvas_residency_map: %s", uvas_strerror(a));
        CHECK(b == UVAS_OK || b == UVAS_ERR_NOT_INIT || b == UVAS_ERR_NOT_OWNED,
              "uvas_query_range: %s", uvas_strerror(b));
        atomic_fetch_add(&calls, 2);
        atomic_fetch_add(&answered, (a == UVAS_OK) + (b == UVAS_OK));
    }
    return NULL;
}

int main(void)
{
    tu_deadline(50);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    tu_setenv("UVAS_BLOCK_SIZE", "16K");
    tu_setenv("UVAS_DEVICE", "none");
    pthread_t th;
    CHECK(pthread_create(&th, NULL, reader, NULL) == 0, "pthread_create");
    int cycles = 0;
    double end = tu_now_s() + 4;
    while (cycles < 50 || (tu_now_s() < end && cycles < 400)) {
        CHECK_OK(uvas_init(NULL));
        char *q = uvas_malloc(1 << 20);
        CHECK(q != NULL, "uvas_malloc");
        atomic_store(&p, q);
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
        CHECK_OK(uvas_finalize());
        cycles++;
    }
    atomic_store(&stop, 1);
    CHECK(pthread_join(th, NULL) == 0, "pthread_join");
    printf("%d init/finalize cycles beside %ld range queries (%ld answered)\n", cycles,
           atomic_load(&calls), atomic_load(&answered));
    CHECK(atomic_load(&answered) > 0, "no range query was answered");
    return 0;
}
