/*
 * No lost or torn writes while blocks migrate (guarantee 3): writer threads
 * each own a disjoint set of 8-byte words spread over a few shared blocks
 * and store a strictly increasing counter into them, while a migrator
 * thread moves the blocks to the device and back thousands of times.
 * Every word must hold its writer's last value, and every read a writer
 * makes of its own word must return what it last stored.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"

#define WRITERS 3
#define BLOCKS 3

static uint64_t *area;
static size_t words, bs;
static atomic_int stop, started;
static atomic_long migrations;

static void *writer(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t v = 0;
    while (!atomic_load(&stop)) {
        v++;
        /* word i belongs to writer i % WRITERS */
        for (size_t i = (size_t)t; i < words; i += WRITERS * 61) {
            uint64_t prev = area[i];
            CHECK(prev == (v - 1) * WRITERS + (uint64_t)t || (v == 1 && prev == 0),
                  "writer %d: word %zu holds %llu, last stored %llu: lost or torn write", t, i,
                  (unsigned long long)prev, (unsigned long long)((v - 1) * WRITERS + t));
            area[i] = v * WRITERS + (uint64_t)t;
        }
        if (v == 1)
            atomic_fetch_add(&started, 1);
    }
    return (void *)(uintptr_t)v;
}

int main(void)
{
    tu_deadline(55);
    struct uvas_range_desc d = tu_init_device("1G", "64K");
    bs = d.block_size;
    size_t len = BLOCKS * bs;
    area = uvas_malloc(len);
    CHECK(area != NULL, "uvas_malloc");
    words = len / sizeof *area;

    pthread_t th[WRITERS];
    for (int t = 0; t < WRITERS; t++)
        CHECK(pthread_create(&th[t], NULL, writer, (void *)(intptr_t)t) == 0, "pthread_create");
    while (atomic_load(&started) < WRITERS) /* every writer stores before blocks move */
        sched_yield();
    for (int round = 0; round < 1500; round++) {
        int to = round % 2 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE;
        CHECK_OK(uvas_migrate(area, len, to, 0));
        atomic_fetch_add(&migrations, 1);
    }
    atomic_store(&stop, 1);
    uint64_t last[WRITERS];
    for (int t = 0; t < WRITERS; t++) {
        void *r;
        pthread_join(th[t], &r);
        last[t] = (uint64_t)(uintptr_t)r;
    }
    CHECK_OK(uvas_migrate(area, len, UVAS_LOC_DEVICE, 0));
    for (size_t i = 0; i < words; i++) {
        int t = (int)(i % WRITERS);
        uint64_t want = (i % (WRITERS * 61)) == (size_t)t ? last[t] * WRITERS + (uint64_t)t : 0;
        CHECK(area[i] == want, "word %zu: %llu after the run, expected %llu", i,
              (unsigned long long)area[i], (unsigned long long)want);
    }
    struct uvas_stats st = tu_stats();
    printf("%ld migration calls, %llu blocks to device, %llu to host, %llu CPU faults on "
           "device blocks; writers stored %llu, %llu, %llu times\n",
           atomic_load(&migrations), (unsigned long long)st.migrations[UVAS_RES_DEVICE],
           (unsigned long long)st.migrations[UVAS_RES_HOST],
           (unsigned long long)st.faults_device, (unsigned long long)last[0],
           (unsigned long long)last[1], (unsigned long long)last[2]);
    CHECK(st.migrations[UVAS_RES_DEVICE] >= 750 * BLOCKS / 2, "too few migrations happened");
    uvas_free(area);
    CHECK_OK(uvas_finalize());
    return 0;
}
