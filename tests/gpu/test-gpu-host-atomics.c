/*
 * A kernel's atomics on host-resident memory and the CPU's on the same
 * words, at the same time: include/uvas.glsl's atomics on a block the
 * kernel reaches in place over the bus (host memory imported into the
 * device) must be atomic with the CPU threads' atomics on it, or adds are
 * lost. The kernel's invocations each add 1 to a 32-bit and a 64-bit
 * counter many times while CPU threads add to both through the range
 * for as long as the launch runs; the totals must be exact.
 *
 * Then, where kernels can wait: a running kernel sees a CPU thread's store
 * into host memory it polls (what a kernel's shmem_wait_until on a
 * host-resident word needs): the kernel marks that it runs, the CPU
 * stores a flag when it sees the mark, the kernel polls for it with
 * volatile reads, a bounded number of times.
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

static _Atomic uint32_t *c32;
static _Atomic uint64_t *c64;
static atomic_int go, stop;
static uint64_t cpu_adds[THREADS];

struct args {
    uint64_t counter, wide, flags;
    uint32_t n, iters, mode, pad;
};

#define POLLS (1u << 22)

static void *flagger(void *arg)
{
    _Atomic uint32_t *f = arg;
    while (!atomic_load_explicit(&f[0], memory_order_acquire) &&
           !atomic_load_explicit(&stop, memory_order_relaxed))
        ;
    atomic_store_explicit(&f[1], 1, memory_order_release);
    return NULL;
}


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
    struct args a = {(uintptr_t)c32, (uintptr_t)c64, 0, INVOCATIONS, ITERS, 0, 0};
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

    struct uvas_gpu_info gi;
    CHECK_OK(uvas_gpu_info(&gi));
    if (!gi.fault_waits) {
        printf("SKIP the kernel polling host memory: a kernel cannot wait on this device "
               "(it bounds shader loops)\n");
    } else {
        _Atomic uint32_t *f = (_Atomic uint32_t *)(w + 2); /* started, flag, found, polls */
        memset((void *)f, 0, 16);
        atomic_store(&stop, 0);
        pthread_t ft;
        CHECK(pthread_create(&ft, NULL, flagger, (void *)f) == 0, "pthread_create");
        struct args b = {(uintptr_t)c32, (uintptr_t)c64, (uintptr_t)f, 1, POLLS, 1, 0};
        CHECK_OK(tu_launch(k, 1, &b, sizeof b));
        atomic_store(&stop, 1);
        pthread_join(ft, NULL);
        CHECK(atomic_load(&f[0]) == 1, "the kernel's mark never reached the CPU");
        CHECK(atomic_load(&f[2]) == 1, "a running kernel never saw the CPU's store into host "
              "memory in %u volatile reads (flag %u at the end)", atomic_load(&f[3]),
              atomic_load(&f[1]));
        printf("gpu-host-atomics: the kernel saw the CPU's store after %u polls\n",
               atomic_load(&f[3]));
    }
    uvas_free(w);
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
