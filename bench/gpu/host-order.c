/*
 * host-order-probe: does a kernel's store to host memory, followed by its
 * read of another host word, order against a CPU thread's store to that
 * word followed by its read of the first (a Dekker pair across the bus)?
 * The same-node bypass of docs/gpu-shmem-plan.md needs it: a kernel would
 * pin a peer's block in host memory and then read the block's gate word,
 * while the owner's CPU closes the gate and then reads the pins.
 *
 * One kernel invocation and one CPU thread play R rounds: each round
 * the CPU says go, waits a random few hundred nanoseconds (so that either
 * side may come first), stores gate[r] and reads pin[r]; the kernel, on
 * go, stores pin[r] (a volatile store and memoryBarrier, or an atomic
 * exchange) and reads gate[r]. A round where neither saw the other's
 * store is a violation. Printed per variant: rounds, who saw whom,
 * violations, and the time per round. It proves nothing when it finds
 * none, only that none showed in that many tries.
 *
 * Where go and gate live: host memory (the kernel reaches it in place over
 * the bus; on the H100 it never sees the CPU's later stores there, so the
 * rounds stop at the first), or device memory the CPU writes through a
 * mapping (UVAS_ADVISE_ACCESSED_BY_CPU: the stores cross the BAR), which
 * is where a bypass's gate words would have to be; the pins in host
 * memory or in device memory too (the CPU reads them through the BAR).
 * saw and done are host memory, which the kernel writes.
 *
 * usage: host-order-probe [-r ROUNDS]     (a device whose kernels wait)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uvas.h"
#include "uvas_gpu.h"

static const uint32_t spv[] =
#include "host-order.spv.h"
    ;

struct args {
    uint64_t ctl, host, pins;
    uint32_t rounds, variant, poll, pad;
};

/* ctl: go, gate[R]; host: done, pin[R], saw[R]; every word 256 bytes from
 * the next (host-order.comp). */
#define LINE 64u /* words */
static _Atomic uint32_t *ctl, *w;
static uint32_t R = 20000;
static uint32_t *cpu_saw;
static uvas_kernel_t *k;
static int launch_rc;

static void *launcher(void *arg)
{
    struct args *a = arg;
    launch_rc = uvas_kernel_launch(k, (uint32_t[3]){1, 1, 1}, a, sizeof *a, 0);
    return NULL;
}

static size_t bytes(void)
{
    return (size_t)(2 + 2 * (size_t)R) * LINE * 4;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int run(_Atomic uint32_t *c, _Atomic uint32_t *p, uint32_t variant, uint32_t poll,
               const char *name)
{
    memset((void *)w, 0, bytes());
    for (size_t i = 0; i < bytes() / 4; i++) { /* device memory, maybe: word by word */
        atomic_store_explicit(&c[i], 0, memory_order_relaxed);
        atomic_store_explicit(&p[i], 0, memory_order_relaxed);
    }
    _Atomic uint32_t *go = &c[0], *gate = &c[2 * LINE], *done = &w[LINE], *pin = &p[2 * LINE],
                     *saw = &w[2 * LINE] + LINE * R;
    struct args a = {(uintptr_t)c, (uintptr_t)w, (uintptr_t)p, R, variant, poll, 0};
    pthread_t th;
    if (pthread_create(&th, NULL, launcher, &a))
        return 1;
    uint64_t seed = 88172645463325252ull;
    double t0 = 0;
    uint32_t r = 0;
    for (; r < R; r++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        unsigned spin = (unsigned)(seed % 4096);
        atomic_store_explicit(go, r + 1, memory_order_release);
        if (r == 1)
            t0 = now();
        for (volatile unsigned i = 0; i < spin; i++)
            ;
        /* A plain store and a full fence (the gate may be write-combining
         * device memory, where a locked instruction is no help). */
        atomic_store_explicit(&gate[LINE * r], 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
        cpu_saw[r] = atomic_load_explicit(&pin[LINE * r], memory_order_seq_cst);
        uint32_t d;
        while ((d = atomic_load_explicit(done, memory_order_acquire)) != r + 1 &&
               d != 0xffffffffu)
            ;
        if (d == 0xffffffffu)
            break;
    }
    double per = r > 1 ? (now() - t0) / (r - 1) * 1e6 : 0;
    pthread_join(th, NULL);
    if (launch_rc) {
        fprintf(stderr, "host-order-probe: %s: the launch failed: %s\n", name,
                uvas_last_error());
        return 1;
    }
    if (r < R) {
        printf("%-26s the kernel never saw the CPU's go of round %u (it read go %s): a "
               "running kernel does not see the host's stores there\n", name, r,
               poll ? "by atomicAdd(0)" : "by volatile loads");
        printf("metric host_order.%s.%s.stalled_round %u\n", variant ? "xchg" : "store",
               p != w ? "device_gate_pin" : c != ctl ? "device_gate" : poll ? "atomic_poll"
                                                                     : "volatile_poll", r);
        return 0;
    }
    uint32_t gpu_only = 0, cpu_only = 0, both = 0, none = 0;
    for (uint32_t i = 0; i < R; i++) {
        bool g = atomic_load(&saw[LINE * i]) == 2; /* the kernel read gate = 1 */
        bool c = cpu_saw[i] != 0;           /* the CPU read pin = 1 */
        if (g && c)
            both++;
        else if (g)
            gpu_only++;
        else if (c)
            cpu_only++;
        else
            none++;
    }
    printf("%-26s rounds %6u  kernel saw the gate only %6u  CPU saw the pin only %6u  both %6u"
           "  VIOLATIONS %u  %.2f us/round\n", name, R, gpu_only, cpu_only, both, none, per);
    const char *v = variant ? "xchg" : "store",
               *pl = p != w ? "device_gate_pin" : c != ctl ? "device_gate" : poll ? "atomic_poll"
                                                                          : "volatile_poll";
    printf("metric host_order.%s.%s.violations %u\nmetric host_order.%s.%s.rounds %u\n"
           "metric host_order.%s.%s.us_per_round %.3f\n", v, pl, none, v, pl, R, v, pl, per);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "-r"))
        R = (uint32_t)strtoul(argv[2], NULL, 0);
    if (uvas_init(NULL)) {
        fprintf(stderr, "host-order-probe: uvas_init: %s\n", uvas_last_error());
        return 1;
    }
    struct uvas_gpu_info gi;
    if (uvas_kernel_load(spv, sizeof spv, "main", &k) || uvas_gpu_info(&gi)) {
        fprintf(stderr, "host-order-probe: no kernels here: %s\n", uvas_last_error());
        return 77;
    }
    if (!gi.fault_waits) {
        fprintf(stderr, "host-order-probe: kernels cannot wait on this device\n");
        return 77;
    }
    w = uvas_malloc_hint(bytes(), UVAS_HINT_HOST);
    ctl = uvas_malloc_hint(bytes(), UVAS_HINT_HOST);
    _Atomic uint32_t *dctl = uvas_malloc_hint(bytes(), UVAS_HINT_DEVICE);
    _Atomic uint32_t *dpin = uvas_malloc_hint(bytes(), UVAS_HINT_DEVICE);
    cpu_saw = calloc(R, sizeof *cpu_saw);
    if (!w || !ctl || !dctl || !dpin || !cpu_saw ||
        uvas_advise((void *)dctl, bytes(), UVAS_ADVISE_ACCESSED_BY_CPU, 0) ||
        uvas_advise((void *)dpin, bytes(), UVAS_ADVISE_ACCESSED_BY_CPU, 0)) {
        fprintf(stderr, "host-order-probe: no memory: %s\n", uvas_last_error());
        return 1;
    }
    struct uvas_ptr_info pi;
    int rc = run(ctl, w, 0, 0, "volatile store + barrier") ||
             run(ctl, w, 1, 0, "atomic exchange") ||
             run(ctl, w, 0, 1, "store, go read atomically") ||
             run(ctl, w, 1, 1, "xchg, go read atomically") ||
             run(dctl, w, 0, 0, "gate in device: store") ||
             run(dctl, w, 1, 0, "gate in device: xchg") ||
             run(dctl, dpin, 0, 0, "gate, pin in device: store") ||
             run(dctl, dpin, 1, 0, "gate, pin in device: xchg");
    if (uvas_query((void *)dctl, &pi) == UVAS_OK)
        printf("host-order-probe: the device-side words were %s, %s\n",
               pi.residence == UVAS_RES_DEVICE ? "device-resident" : "NOT device-resident",
               pi.cpu_mapped ? "mapped for the CPU" : "not mapped for the CPU");
    uvas_free((void *)dpin);
    uvas_free((void *)dctl);
    uvas_free((void *)ctl);
    uvas_free((void *)w);
    uvas_kernel_free(k);
    uvas_finalize();
    return rc;
}
