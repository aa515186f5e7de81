/*
 * No write is lost while the owner churns advice and policies move its
 * blocks under peers' puts (the OpenSHMEM face of test-advice-race: PE 0
 * toggling read-mostly under hot-cold:tick_ms=5 while PE 1 put and got back
 * lost 13.8 M words before the fix). PE 0 owns a 16 MiB symmetric array;
 * a thread of PE 0 sets read-mostly, migrates the array to the device, sets
 * the preferred location, unsets both, in a loop, and writes and checks its
 * own slice from the CPU; every other PE, round after round, puts a round
 * pattern into its own slice of PE 0's array and gets it back. Every word
 * read back must be the last one written. Bounded by rounds and time.
 */
#include <shmem.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/check.h"
#include "tests/multi/pes.h"

#define LEN ((size_t)16 << 20)
#define RUN_S 2.0
#define R_MAX 2000

static uint64_t *arr;
static atomic_int stop;
static unsigned long cycles;
static bool device;

static void *toggler(void *arg)
{
    (void)arg;
    for (unsigned i = 0; !atomic_load(&stop); i++) {
        CHECK_OK(uvas_advise(arr, LEN, UVAS_ADVISE_READ_MOSTLY, 0));
        if (device)
            CHECK_OK(uvas_migrate(arr, LEN, UVAS_LOC_DEVICE, 0));
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        CHECK_OK(uvas_advise(arr, LEN, UVAS_ADVISE_UNSET_READ_MOSTLY, 0));
        if (device && i % 2)
            CHECK_OK(uvas_advise(arr, LEN, UVAS_ADVISE_PREFERRED_LOCATION, UVAS_LOC_DEVICE));
        else
            CHECK_OK(uvas_advise(arr, LEN, UVAS_ADVISE_UNSET_PREFERRED_LOCATION, 0));
        cycles++;
    }
    return NULL;
}

int main(void)
{
    tu_deadline(100);
    setenv("UVAS_POLICY", "hot-cold:tick_ms=5", 1);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    tu_need_pes(2);
    device = shmemx_device_present();
    arr = shmem_malloc(LEN);
    CHECK(arr != NULL, "shmem_malloc");
    size_t words = LEN / sizeof *arr, slice = words / (size_t)n;
    uint64_t *mine = malloc(slice * sizeof *mine), *back = malloc(slice * sizeof *back);
    CHECK(mine && back, "malloc");
    shmem_barrier_all();
    pthread_t th;
    if (me == 0)
        CHECK(pthread_create(&th, NULL, toggler, NULL) == 0, "pthread_create");
    uint64_t *at = arr + (size_t)me * slice; /* this PE's slice of PE 0's array */
    double t0 = tu_now_s();
    int r;
    for (r = 1; r <= R_MAX && tu_now_s() - t0 < RUN_S; r++) {
        for (size_t i = 0; i < slice; i++)
            mine[i] = ((uint64_t)me << 56) | ((uint64_t)r << 32) | i;
        if (me == 0) { /* the owner's own CPU writes */
            memcpy(at, mine, slice * sizeof *mine);
            memcpy(back, at, slice * sizeof *back);
        } else {
            shmem_putmem(at, mine, slice * sizeof *mine, 0);
            shmem_quiet();
            shmem_getmem(back, at, slice * sizeof *back, 0);
        }
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < slice; i++)
            if (back[i] != mine[i] && !bad++)
                first = i;
        CHECK(bad == 0, "PE %d round %d: %zu of %zu words lost the last write (first word %zu "
              "holds round %llu)", me, r, bad, slice, first,
              (unsigned long long)((back[first] >> 32) & 0xffffff));
    }
    shmem_barrier_all();
    if (me == 0) {
        atomic_store(&stop, 1);
        pthread_join(th, NULL);
        printf("PE 0: %lu advice cycles (device %s) under hot-cold; %d rounds here, every "
               "word kept\n", cycles, device ? "present" : "absent", r - 1);
    }
    shmem_barrier_all();
    shmem_free(arr);
    free(mine);
    free(back);
    shmem_finalize();
    return 0;
}
