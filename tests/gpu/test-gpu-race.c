/*
 * Kernels run while other threads migrate memory (held blocks wait, the
 * rest move; nothing is lost or torn):
 *  - the main thread launches a kernel that adds 1 to every element of A,
 *    `rounds` times, four times over;
 *  - one thread migrates A to the host and back in a loop: a migration of
 *    a held block waits for the kernel, so each launch sees A whole
 *    wherever it went between launches;
 *  - another migrates B (an allocation no kernel uses) the same way and
 *    checks its pattern after every move;
 *  - a third reads A while the kernels run (a CPU access to a held block
 *    on the device waits; on the host it reads what is there);
 *  - at the end every element of A is exactly 4 * rounds, B is intact.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

struct args {
    uint64_t x;
    uint32_t n, rounds;
};

#define N (16 * 16384) /* 16 blocks of 64 KiB */
static uint32_t *A;
static unsigned char *B;
static atomic_int done;
static atomic_long moves_a, moves_b, reads;

static void *migrate_a(void *arg)
{
    (void)arg;
    while (!atomic_load(&done)) {
        int st = uvas_migrate(A, N * 4, UVAS_LOC_HOST, 0);
        CHECK(st == UVAS_OK, "migrating A to the host: %s", uvas_last_error());
        st = uvas_migrate(A, N * 4, UVAS_LOC_DEVICE, 0);
        CHECK(st == UVAS_OK, "migrating A to the device: %s", uvas_last_error());
        atomic_fetch_add(&moves_a, 1);
    }
    return NULL;
}

static void *migrate_b(void *arg)
{
    (void)arg;
    while (!atomic_load(&done)) {
        CHECK_OK(uvas_migrate(B, N * 4, atomic_load(&moves_b) % 2 ? UVAS_LOC_HOST
                                                                    : UVAS_LOC_DEVICE, 0));
        for (size_t i = 0; i < N * 4; i += 4093)
            CHECK(B[i] == (unsigned char)(i * 7 + 1), "B[%zu] = %u after a move", i, B[i]);
        atomic_fetch_add(&moves_b, 1);
    }
    return NULL;
}

static void *read_a(void *arg)
{
    (void)arg;
    volatile uint32_t sink = 0;
    while (!atomic_load(&done)) {
        for (size_t i = 0; i < N; i += 16384)
            sink += A[i];
        atomic_fetch_add(&reads, 1);
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
    B = uvas_malloc(N * 4);
    CHECK(A && B, "uvas_malloc: %s", uvas_last_error());
    memset(A, 0, N * 4);
    for (size_t i = 0; i < N * 4; i++)
        B[i] = (unsigned char)(i * 7 + 1);
    pthread_t t[3];
    pthread_create(&t[0], NULL, migrate_a, NULL);
    pthread_create(&t[1], NULL, migrate_b, NULL);
    pthread_create(&t[2], NULL, read_a, NULL);
    const uint32_t rounds = 64;
    struct args a = {(uintptr_t)A, N, rounds};
    for (int l = 0; l < 4; l++) {
        int st = tu_launch(k, N, &a, sizeof a);
        CHECK(st == UVAS_OK, "launch %d: %s", l, uvas_last_error());
    }
    atomic_store(&done, 1);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    for (uint32_t i = 0; i < N; i++)
        CHECK(A[i] == 4 * rounds, "A[%u] = %u, expected %u: a kernel's write was lost", i, A[i],
              4 * rounds);
    for (size_t i = 0; i < N * 4; i++)
        CHECK(B[i] == (unsigned char)(i * 7 + 1), "B[%zu] = %u at the end", i, B[i]);
    printf("  4 launches of %u rounds: A exact; meanwhile %ld moves of A, %ld of B, %ld CPU "
           "passes over A\n", rounds, atomic_load(&moves_a), atomic_load(&moves_b),
           atomic_load(&reads));
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
