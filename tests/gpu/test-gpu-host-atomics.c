/*
 * A kernel's atomics on host-resident memory (a block the kernel reaches
 * in place over the bus, host memory imported into the device): the
 * kernel's invocations each add 1 to a 32-bit and a 64-bit counter many
 * times, first alone (the totals exact on every device), then while CPU
 * threads add to both through the range for as long as the launches run:
 * exact where uvas_gpu_info says the device's atomics on host memory are
 * atomic with the CPU's (host_atomics); elsewhere the loss is printed
 * (the H100 on PCIe loses CPU adds: docs/kernels.md).
 *
 * On lavapipe the kernel's atomics are the CPU's own instructions; on a
 * discrete GPU they cross the bus. The OpenSHMEM layer does not rely on
 * them (shmem.glsl sends a kernel's atomic on a host-resident word to the
 * host).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"

#define INVOCATIONS 4096
#define ITERS 64
#define THREADS 2

/* Each CPU thread adds at least this many times, and has begun before the
 * launches start: on a loaded machine a thread may not run at all during
 * them (the check that the CPU added failed under stress-ng). */
#define MIN_ADDS 10000

static _Atomic uint32_t *c32;
static _Atomic uint64_t *c64;
static atomic_int go, stop, started;
static uint64_t cpu_adds[THREADS];

struct args {
    uint64_t counter, wide;
    uint32_t n, iters;
};

static void *adder(void *arg)
{
    uint64_t *mine = arg;
    while (!atomic_load(&go))
        ;
    while (*mine < MIN_ADDS || !atomic_load_explicit(&stop, memory_order_relaxed)) {
        atomic_fetch_add_explicit(c32, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(c64, 1, memory_order_relaxed);
        if ((*mine)++ == 0)
            atomic_fetch_add(&started, 1);
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

    struct uvas_gpu_info gi;
    CHECK_OK(uvas_gpu_info(&gi));
    struct args a = {(uintptr_t)c32, (uintptr_t)c64, INVOCATIONS, ITERS};
    const int rounds = 8;
    const uint64_t kernel_adds = (uint64_t)rounds * INVOCATIONS * ITERS;

    /* The kernels' atomics on host memory among themselves: exact on
     * every device. */
    for (int r = 0; r < rounds; r++)
        CHECK_OK(tu_launch(k, INVOCATIONS, &a, sizeof a));
    CHECK(atomic_load(c64) == kernel_adds && atomic_load(c32) == (uint32_t)kernel_adds,
          "the kernels alone: the counters are %llu and %u, not %llu",
          (unsigned long long)atomic_load(c64), atomic_load(c32),
          (unsigned long long)kernel_adds);

    /* Beside the CPU's: several launches, so the CPU's adds overlap them. */
    memset(w, 0, 16);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, adder, &cpu_adds[i]) == 0, "pthread_create");
    atomic_store(&go, 1);
    while (atomic_load(&started) < THREADS)
        sched_yield();
    for (int r = 0; r < rounds; r++)
        CHECK_OK(tu_launch(k, INVOCATIONS, &a, sizeof a));
    atomic_store(&stop, 1);
    uint64_t cpu = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        cpu += cpu_adds[i];
    }
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(w, &info));
    CHECK_EQ(info.residence, UVAS_RES_HOST, "the counters left host memory");
    CHECK(cpu >= (uint64_t)THREADS * MIN_ADDS, "the CPU threads added %llu times",
          (unsigned long long)cpu);
    uint64_t want = kernel_adds + cpu;
    uint64_t got = atomic_load(c64);
    uint32_t got32 = atomic_load(c32);
    if (gi.host_atomics) {
        CHECK(got == want, "the 64-bit counter is %llu, not %llu: %llu kernel adds and %llu CPU "
              "adds (atomics lost between the kernel and the CPU, where uvas_gpu_info says "
              "they are one kind)", (unsigned long long)got, (unsigned long long)want,
              (unsigned long long)kernel_adds, (unsigned long long)cpu);
        CHECK_EQ(got32, (uint32_t)want, "the 32-bit counter");
        printf("gpu-host-atomics: %d launches of %u x %u adds beside %llu CPU adds on two "
               "host-resident counters: exact\n", rounds, INVOCATIONS, ITERS,
               (unsigned long long)cpu);
    } else {
        /* Not one kind here, as uvas_gpu_info says: what was lost is the
         * device's and the bus's business; nothing may be invented. */
        CHECK(got <= want && got32 <= (uint32_t)want, "the counters (%llu, %u) exceed every "
              "add made (%llu)", (unsigned long long)got, got32, (unsigned long long)want);
        printf("gpu-host-atomics: this device's atomics on host memory are not atomic with "
               "the CPU's (uvas_gpu_info.host_atomics 0): of %llu kernel and %llu CPU adds "
               "the 64-bit counter kept %llu (%llu lost), the 32-bit one %u\n",
               (unsigned long long)kernel_adds, (unsigned long long)cpu,
               (unsigned long long)got, (unsigned long long)(want - got), got32);
    }

    uvas_free(w);
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
