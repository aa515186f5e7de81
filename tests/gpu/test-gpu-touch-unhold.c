/*
 * CPU touches of blocks kernels hold and let go of, in a loop: a touch of
 * a device-resident block faults, and the fault service parks it while
 * the block is taken (uvas_blk_park). Whoever ends that, the launch's
 * first hold or its last unhold, must wake it; since a hold wakes only
 * marked blocks, a park that did not mark, or an end that dropped the
 * mark, leaves the CPU thread asleep for ever: the deadline fails the
 * test then. (Before the marks, a fault read in the last unhold's BUSY
 * window, a few hundred nanoseconds, was dropped and never woken: a
 * window this test does not hit in a few seconds, but every park and
 * wake path it takes, thousands of times, is the new protocol's.)
 *  - the main thread launches a kernel adding 1 to every element of A,
 *    many times (each launch moves A's blocks back to the device and
 *    holds them);
 *  - two threads read the first word of every block of A meanwhile
 *    (each read of a device-resident block brings it back);
 *  - at the end every element is the number of launches.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

struct args {
    uint64_t x;
    uint32_t n, rounds;
};

#define BLOCK (64 * 1024)
#define NB 8
#define N (NB * BLOCK / 4)
static uint32_t *A;
static atomic_int done;
static atomic_long touches;

static void *touch(void *arg)
{
    size_t off = (size_t)(uintptr_t)arg;
    volatile uint32_t sink = 0;
    while (!atomic_load(&done)) {
        for (size_t b = 0; b < NB; b++)
            sink += A[b * (BLOCK / 4) + off];
        atomic_fetch_add(&touches, 1);
    }
    (void)sink;
    return NULL;
}

int main(void)
{
    tu_deadline(100);
    tu_init_device("64M", "64K");
    uvas_kernel_t *k = tu_kernel("spin");
    A = uvas_malloc(N * 4);
    CHECK(A, "uvas_malloc: %s", uvas_last_error());
    memset(A, 0, N * 4);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, touch, (void *)(uintptr_t)(i * 1024 + 3));
    struct args a = {(uintptr_t)A, N, 1};
    uint32_t launches = 0;
    double t0 = tu_now_s();
    while (launches < 4000 && tu_now_s() - t0 < 4.0) {
        int st = tu_launch(k, N, &a, sizeof a);
        CHECK(st == UVAS_OK, "launch %u: %s", launches, uvas_last_error());
        launches++;
    }
    atomic_store(&done, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (uint32_t i = 0; i < N; i++)
        CHECK(A[i] == launches, "A[%u] = %u after %u launches: a kernel's write was lost", i,
              A[i], launches);
    struct uvas_stats s;
    uvas_stats_get(&s);
    CHECK(atomic_load(&touches) > 0, "the touching threads never got through A");
    printf("  %u launches over %d blocks; meanwhile %ld CPU passes over them, %llu faults, "
           "%llu dropped for the block's taker to wake\n", launches, NB,
           atomic_load(&touches), (unsigned long long)s.faults,
           (unsigned long long)s.faults_spurious);
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
