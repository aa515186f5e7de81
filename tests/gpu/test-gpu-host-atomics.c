/*
 * A kernel's atomics on host-resident memory and the CPU's on the same
 * words, at the same time: include/uvas.glsl's atomics on a block the
 * kernel reaches in place over the bus (host memory imported into the
 * device) must be atomic with the CPU threads' atomics on it, or adds are
 * lost. The kernel's invocations each add 1 to a 32-bit and a 64-bit
 * counter many times while CPU threads add to both through the range
 * for as long as the launch runs; the totals must be exact.
 *
 * What it proves is the device's and the bus's: on lavapipe the kernel's
 * atomics are the CPU's own instructions; on a discrete GPU they cross
 * PCIe (AtomicOps) to the host's memory controller. The OpenSHMEM layer
 * relies on the same property nowhere (shmem.glsl sends a kernel's atomic
 * on a host-resident word to the host); user kernels over uvas pointers do.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

#define INVOCATIONS 4096
#define ITERS 64
#define THREADS 2

struct args {
    uint64_t counter, wide;
    uint32_t n, iters;
};

static _Atomic uint32_t *c32;
static _Atomic uint64_t *c64;
static atomic_int go, stop;
static uint64_t cpu_adds[THREADS];

static void *adder(void *arg)
{
    uint64_t *mine = arg;
    while (!atomic_load(&go))
        ;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        atomic_fetch_add_explicit(c32, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(c64, 1, memory_order_relaxed);
        (*mine)++;
    }
    return NULL;
}

int main(void)
{
    tu_deadline(120);
    tu_init_device("64M", "64K");
    size_t bytes;
    void *code = tu_spirv("host-atomics", &bytes);
    uvas_kernel_t *k = NULL;
    int st = uvas_kernel_load(code, bytes, "main", &k);
    free(code);
    if (st == UVAS_ERR_NO_DEVICE)
        SKIP("no device runs kernels here: %s", uvas_last_error());
    if (st == UVAS_ERR_INVAL && strstr(uvas_last_error(), "refused"))
        SKIP("this device refuses 64-bit atomics: %s", uvas_last_error());
    CHECK_OK(st);
    /* Host memory that never migrates: the kernel reaches it over the bus. */
    uint64_t *w = uvas_malloc_hint(64, UVAS_HINT_HOST);
    CHECK(w != NULL, "uvas_malloc_hint: %s", uvas_last_error());
    memset(w, 0, 64);
    c32 = (_Atomic uint32_t *)w;
    c64 = (_Atomic uint64_t *)(w + 1);

    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, adder, &cpu_adds[i]) == 0, "pthread_create");
    struct args a = {(uintptr_t)c32, (uintptr_t)c64, INVOCATIONS, ITERS};
    uint64_t kernel_adds = 0;
    int rounds = 0;
    atomic_store(&go, 1);
    /* Several launches, so the CPU's adds overlap the kernel's. */
    for (; rounds < 8; rounds++) {
        CHECK_OK(tu_launch(k, INVOCATIONS, &a, sizeof a));
        kernel_adds += (uint64_t)INVOCATIONS * ITERS;
    }
    atomic_store(&stop, 1);
    uint64_t cpu = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        cpu += cpu_adds[i];
    }
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(w, &info));
    CHECK_EQ(info.residence, UVAS_RES_HOST, "the counters left host memory");
    uint64_t want = kernel_adds + cpu;
    uint64_t got = atomic_load(c64);
    CHECK(got == want, "the 64-bit counter is %llu, not %llu: %llu kernel adds and %llu CPU "
          "adds (atomics lost between the kernel and the CPU)", (unsigned long long)got,
          (unsigned long long)want, (unsigned long long)kernel_adds, (unsigned long long)cpu);
    CHECK_EQ(atomic_load(c32), (uint32_t)want, "the 32-bit counter");
    CHECK(cpu > 0, "the CPU threads never added");
    printf("gpu-host-atomics: %d launches of %u x %u adds beside %llu CPU adds on two "
           "host-resident counters: exact\n", rounds, INVOCATIONS, ITERS,
           (unsigned long long)cpu);
    uvas_free(w);
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
