/*
 * gpu-shmem-bench: OpenSHMEM calls made by a kernel (include/shmem.glsl)
 * beside the same calls made by the CPU, in one run, for a target in PE
 * 1's host heap and in its device heap.
 *
 * usage: mpirun -np 2 gpu-shmem-bench [-q] [-p] [-d MiB]
 *   -q  fewer repetitions; -d the device row's bulk size (32 MiB); -p
 *   where the device-to-device put's time goes (probe_d2d)
 *
 * PE 0 measures; PE 1 waits in a barrier. Rows, per target tier:
 *   put8+quiet us  a kernel's shmem_uint64_p + shmem_quiet, in a loop of
 *                  one invocation / the CPU's, in a loop
 *   put4K+quiet us one work-group's shmem_putmem_work_group of 4 KiB +
 *                  shmem_quiet_work_group, in a loop / the CPU's
 *                  shmem_putmem + shmem_quiet, in a loop
 *   get4K us       one work-group's shmem_getmem_work_group of 4 KiB / the
 *                  CPU's shmem_getmem (kernels: only where they can wait)
 *   g8 us          shmem_uint64_g the same way (kernels: only where they
 *                  can wait)
 *   rate Mops      8-byte puts from each of 4096 invocations (one each
 *                  through the host; 64 each to device memory lent to
 *                  the kernel, enough to time), a quiet per work-group / the
 *                  CPU's 4096 puts and one quiet
 *   put256K GB/s   host tier: one work-group's shmem_putmem_work_group of
 *                  256 KiB + quiet / the CPU's shmem_putmem + quiet
 *   put32M GB/s    device tier, device to device: 256 work-groups each
 *                  putting their slice of 32 MiB from PE 0's device-
 *                  resident copy + quiet / the CPU's shmem_putmem between
 *                  the same buffers (the copy engine) + quiet; then the
 *                  same from 2048 work-groups, and 2048 copying half of
 *                  PE 0's own copy onto its other half with uvas.glsl's
 *                  loads and stores (no OpenSHMEM call, no lease); and
 *                  the first 2 MiB alone from 256 work-groups (these
 *                  three by the device's clock where it has one: their
 *                  kernels take about as long as a launch's jitter)
 * Under UVAS_TRANSPORT=ucx the rows are ucx_host and ucx_device: every
 * call of a kernel goes through the host's proxy over UCX.
 * A kernel's figure is the launch's time less that of an empty launch
 * holding the same memory (medians of the repetitions), over the calls it
 * made. Each launch holds
 * PE 0's own copies of the targets, so its kernel is lent PE 1's blocks
 * where they are device memory on this GPU (transport/pe/lease.h) and
 * reaches them directly; other calls go through the request ring the
 * launching thread serves (docs/kernels.md). The data of the last bulk
 * put is read back and compared (exit 1 on a mismatch).
 */
#include <shmem.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uvas.h"
#include "uvas_gpu.h"

static const uint32_t spv[] =
#include "shmem-calls.spv.h"
    ;

#define BIG (2u << 20)
#define D2D (32u << 20)
#define RATE_INV 4096u
#define RATE_PER 64u

struct args {
    uint64_t dest, src, nbytes;
    uint32_t iters, mode;
    int32_t pe;
    uint32_t sum_at; /* where in src mode 1 leaves its sum */
};

static int reps = 5;
static bool probe; /* -p */
static size_t d2d = D2D; /* the device row's bulk size (-d MiB) */
static bool ucx;          /* UVAS_TRANSPORT=ucx: every call of a kernel through the host */
static uvas_kernel_t *k;
static uint8_t *ksrc; /* the kernel's source, held for each launch */
static const void *held[4]; /* and PE 0's copies of the targets (and the host rows' source) */
static size_t nheld = 1;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

/* Seconds of one launch (median of reps). */
static double launch_from(uint32_t mode, uint64_t dest, const void *src, uint64_t nbytes,
                          uint32_t iters, uint32_t groups)
{
    struct args a = {dest, (uintptr_t)src, nbytes, iters, mode, 1, (uint32_t)BIG};
    double t[16];
    for (int r = 0; r < reps; r++) {
        uvas_gpu_hold_t *h;
        if (uvas_gpu_hold(held, nheld, &h)) {
            fprintf(stderr, "gpu-shmem-bench: uvas_gpu_hold: %s\n", uvas_last_error());
            exit(1);
        }
        double t0 = now();
        int rc = uvas_kernel_launch(k, (uint32_t[3]){groups, 1, 1}, &a, sizeof a,
                                    UVAS_KERNEL_NO_SCAN);
        t[r] = now() - t0;
        uvas_gpu_release(h);
        if (rc) {
            fprintf(stderr, "gpu-shmem-bench: mode %u: %s\n", mode, uvas_last_error());
            exit(1);
        }
    }
    return median(t, reps);
}

static double launch(uint32_t mode, uint64_t dest, uint64_t nbytes, uint32_t iters,
                     uint32_t groups)
{
    return launch_from(mode, dest, ksrc, nbytes, iters, groups);
}

/* Seconds of a launch's own work: its wall time less an empty launch's;
 * where the two are too close for the wall clock to tell (the difference
 * came out negative on the H100 once, a rate of -26530x in the guard),
 * the device's clock for the same launch; 0 if neither can tell. */
static double launch_net(uint32_t mode, uint64_t dest, const void *src, uint64_t nbytes,
                         uint32_t iters, uint32_t groups, double empty)
{
    struct uvas_stats s0, s1;
    uvas_stats_get(&s0);
    double wall = launch_from(mode, dest, src, nbytes, iters, groups) - empty;
    uvas_stats_get(&s1);
    if (wall > 0)
        return wall;
    double dev = (double)(s1.kernel_gpu_ns - s0.kernel_gpu_ns) * 1e-9 / reps;
    return dev > 0 ? dev : 0;
}

/* x per second of t seconds; 0 where t could not be measured. */
static double per_s(double x, double t)
{
    return t > 0 ? x / t : 0;
}

/* Seconds of fn over its calls (median of reps). */
static double cpu_time(void (*fn)(uint64_t *, uint32_t), uint64_t *dest, uint32_t iters)
{
    double t[16];
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        fn(dest, iters);
        t[r] = now() - t0;
    }
    return median(t, reps);
}

static void cpu_put8(uint64_t *dest, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        shmem_uint64_p(dest, i, 1);
        shmem_quiet();
    }
}

static const uint8_t *cpu_src; /* the CPU's bulk source, and its size */
static size_t bulk;

#define PUT4K 4096u

static void cpu_put4k(uint64_t *dest, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        shmem_putmem(dest, cpu_src, PUT4K, 1);
        shmem_quiet();
    }
}

static uint8_t get4k_buf[PUT4K];

static void cpu_get4k(uint64_t *dest, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        shmem_getmem(get4k_buf, dest, PUT4K, 1);
}

static volatile uint64_t sink;

static void cpu_g8(uint64_t *dest, uint32_t n)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += shmem_uint64_g(dest, 1);
    sink = s;
}

static void cpu_rate(uint64_t *dest, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        shmem_uint64_p(dest + i, i, 1);
    shmem_quiet();
}

static struct uvas_stats probe_d; /* the last dev_time's counters, less those before it */

/* Device seconds of one launch (the kernels' time by the device's clock,
 * over the repetitions; 0 where the device has no clock). */
static double dev_time(uint32_t mode, uint64_t dest, const void *src, uint64_t n, uint32_t groups)
{
    struct uvas_stats s0, s1;
    uvas_stats_get(&s0);
    launch_from(mode, dest, src, n, 0, groups);
    uvas_stats_get(&s1);
    probe_d.kernel_faults = s1.kernel_faults - s0.kernel_faults;
    probe_d.kernel_fault_waits = s1.kernel_fault_waits - s0.kernel_fault_waits;
    probe_d.kernel_peer_leases = s1.kernel_peer_leases - s0.kernel_peer_leases;
    probe_d.kernel_requests = s1.kernel_requests - s0.kernel_requests;
    return (double)(s1.kernel_gpu_ns - s0.kernel_gpu_ns) * 1e-9 / reps;
}

/* The same, for one invocation's loop of iters (modes 0, 9, 10). */
static double dev_time_iters(uint32_t mode, uint64_t dest, const void *src, uint64_t n,
                             uint32_t iters)
{
    struct uvas_stats s0, s1;
    uvas_stats_get(&s0);
    launch_from(mode, dest, src, n, iters, 1);
    uvas_stats_get(&s1);
    return (double)(s1.kernel_gpu_ns - s0.kernel_gpu_ns) * 1e-9 / reps;
}

/* -p: where a device-to-device bulk put's time goes, by the device's
 * clock: the put (mode 4), each work-group's lease alone (6), stores of a
 * constant through the lease (7), the put's copy alone through it (12),
 * the copy's loads alone (13), constant stores into PE 0's own copy (8),
 * at 256 and 2048 work-groups; then put8+quiet's parts (9, 10). */
static void probe_d2d(uint8_t *big, const uint8_t *src)
{
    static const uint32_t modes[] = {4, 6, 7, 12, 13, 8};
    static const char *what[] = {"put (shmem_putmem_work_group)", "leases alone",
                                 "constant stores through the lease",
                                 "shmem_wg_copy_ through the lease", "uvas.glsl's loads alone",
                                 "constant stores, own copy"};
    for (uint32_t g = 256; g <= 2048; g *= 8)
        for (int m = 0; m < 6; m++) {
            double t = dev_time(modes[m], (uintptr_t)big, src, bulk, g);
            printf("probe   %4u work-groups  %-34s %9.1f us  %8.2f GB/s  faults %llu waits %llu "
                   "leases %llu requests %llu\n", g, what[m], t * 1e6,
                   t > 0 ? (double)bulk / t / 1e9 : 0,
                   (unsigned long long)probe_d.kernel_faults,
                   (unsigned long long)probe_d.kernel_fault_waits,
                   (unsigned long long)probe_d.kernel_peer_leases,
                   (unsigned long long)probe_d.kernel_requests);
        }
    /* put8+quiet's parts, per call (the word: 8 bytes at the start of big) */
    const uint32_t n = 200;
    double empty = dev_time_iters(0, (uintptr_t)big, src, 0, 0);
    double take = (dev_time_iters(9, (uintptr_t)big, src, 0, n) - empty) / n;
    double store = (dev_time_iters(10, (uintptr_t)big, src, 0, n) - empty) / n;
    double whole = (dev_time_iters(0, (uintptr_t)big, src, 0, n) - empty) / n;
    printf("probe   put8+quiet %.2f us: a lease taken and given back %.2f us, a store and a "
           "barrier %.2f us (device clock)\n", whole * 1e6, take * 1e6, store * 1e6);
    /* Mode 8 wrote over PE 0's copy, the bulk put's source: its pattern
     * back, on the device again. */
    for (size_t b = 0; b < bulk; b++)
        big[b] = (uint8_t)(b * 7 + 1);
    if (uvas_migrate(big, bulk, UVAS_LOC_DEVICE, 0)) {
        fprintf(stderr, "gpu-shmem-bench: %s\n", uvas_last_error());
        exit(1);
    }
}

static void cpu_big(uint64_t *dest, uint32_t n)
{
    (void)n;
    shmem_putmem(dest, cpu_src, bulk, 1);
    shmem_quiet();
}

#define PUT2M (2u << 20)

static void cpu_put2m(uint64_t *dest, uint32_t n)
{
    (void)n;
    shmem_putmem(dest, cpu_src, PUT2M, 1);
    shmem_quiet();
}

/* GB/s of a bulk launch by the device's clock, or by the wall's less an
 * empty launch where the device has no clock. */
static double launch_gbs(uint32_t mode, uint64_t dest, const void *src, uint64_t n,
                         uint32_t groups, double empty)
{
    double t = dev_time(mode, dest, src, n, groups);
    if (t <= 0)
        t = launch_from(mode, dest, src, n, 0, groups) - empty;
    return (double)n / t / 1e9;
}

/* One target tier's rows: host memory (through the host's ring, and any
 * tier over UCX): bulk puts of 256 KiB from one work-group; device memory
 * lent to the kernel: 32 MiB between the two PEs' device-resident copies. */
static void row(const char *tier, long hints, bool waits)
{
    bool dev = hints == SHMEM_MALLOC_DEVICE_HEAP;
    /* A kernel's bulk put goes directly (leases) unless UCX carries every
     * call: then the host row's 256 KiB from one work-group (the ring). */
    bool direct = dev && !ucx;
    bulk = direct ? d2d : 256u << 10;
    /* puts per invocation in the rate row: one each where they go through
     * the host's ring (it would fill), 64 each where they go directly */
    uint32_t per = direct ? RATE_PER : 1;
    uint64_t *word = shmem_malloc_with_hints(8 * RATE_INV * per, hints);
    uint8_t *big = shmem_malloc_with_hints(dev ? d2d : BIG, hints);
    if (!word || !big) {
        fprintf(stderr, "gpu-shmem-bench: shmem_malloc_with_hints: %s\n", uvas_last_error());
        exit(1);
    }
    /* PE 0's bulk source: its own copy in the device row (filled here,
     * then back on the device); in the host rows a host-heap buffer, which
     * never moves (the launches' own buffer, ksrc, is one device access a
     * launch to the policies, which soon move it to the device). */
    const uint8_t *ksrc_row = ksrc;
    uint8_t *hsrc = dev ? NULL : shmem_malloc_with_hints(BIG, SHMEM_MALLOC_HOST_HEAP);
    if (!dev && !hsrc) {
        fprintf(stderr, "gpu-shmem-bench: shmem_malloc_with_hints: %s\n", uvas_last_error());
        exit(1);
    }
    if (hsrc) {
        for (size_t b = 0; b < BIG; b++)
            hsrc[b] = (uint8_t)(b * 7 + 1);
        ksrc_row = hsrc;
    }
    cpu_src = ksrc_row;
    if (dev) {
        for (size_t b = 0; b < bulk; b++)
            big[b] = (uint8_t)(b * 7 + 1);
        if (uvas_migrate(big, bulk, UVAS_LOC_DEVICE, 0)) {
            fprintf(stderr, "gpu-shmem-bench: %s\n", uvas_last_error());
            exit(1);
        }
        ksrc_row = cpu_src = big;
    }
    held[1] = word;
    held[2] = big;
    held[3] = hsrc;
    nheld = hsrc ? 4 : 3;
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        /* Where kernels cannot wait (lavapipe) the device also ends a
         * work-group's loops after a budget of iterations: 17 rounds of an
         * 8-byte put and quiet, fewer than 8 of 4 KiB puts. The rest of the
         * loop never ran, and the figures divided the time of those few by
         * 200 (the launch now fails, the ring having lost a request), so
         * the loops stay short there. */
        const uint32_t n = waits ? 200 : 4;
        /* An empty launch holding (and lent) what the row's launches hold. */
        double empty = launch(0, (uintptr_t)word, 0, 0, 1);
        printf("%-7s an empty launch %.1f us\n", tier, empty * 1e6);
        double kput = launch_net(0, (uintptr_t)word, ksrc, 0, n, 1, empty) / n * 1e6;
        double cput = cpu_time(cpu_put8, word, n) / n * 1e6;
        double kput4k = launch_net(11, (uintptr_t)word, ksrc_row, PUT4K, n, 1, empty) / n * 1e6;
        double cput4k = cpu_time(cpu_put4k, word, n) / n * 1e6;
        /* (the kernel's get lands in ksrc, just below where the g row's sum does) */
        double kget4k = waits ? launch_net(14, (uintptr_t)word, ksrc + BIG - PUT4K, PUT4K, n, 1,
                                           empty) / n * 1e6
                              : 0;
        double cget4k = cpu_time(cpu_get4k, word, n) / n * 1e6;
        double kg = waits ? launch_net(1, (uintptr_t)word, ksrc, 0, n, 1, empty) / n * 1e6 : 0;
        double cg = cpu_time(cpu_g8, word, n) / n * 1e6;
        double krate = per_s((double)RATE_INV * per,
                             launch_net(2, (uintptr_t)word, ksrc, 0, per, RATE_INV / 64, empty)) /
                       1e6;
        double crate = RATE_INV / cpu_time(cpu_rate, word, RATE_INV) / 1e6;
        struct uvas_stats s0, s1;
        uvas_stats_get(&s0);
        double kbw = per_s((double)bulk, launch_net(direct ? 4 : 3, (uintptr_t)big, ksrc_row, bulk,
                                                    0, direct ? 256 : 1, empty)) / 1e9;
        uvas_stats_get(&s1);
        /* How the bulk put went: directly (leases) or through the host;
         * and its kernels' time by the device's clock (0 where it has
         * none), beside the launches' wall time above. */
        unsigned long long served = (unsigned long long)(s1.kernel_requests - s0.kernel_requests);
        double gpu_s = (double)(s1.kernel_gpu_ns - s0.kernel_gpu_ns) * 1e-9 / reps;
        double kbw_dev = gpu_s > 0 ? (double)bulk / gpu_s / 1e9 : 0;
        double cbw = (double)bulk / cpu_time(cpu_big, (uint64_t *)big, 0) / 1e9;
        /* Where a bulk put's time goes on the device: the same put from
         * 8x the work-groups (the GPU's parallelism), and a copy within
         * PE 0's own device memory (no lease, no import: translated
         * loads and stores on both sides). */
        double kbw_wide = 0, kbw_self = 0; /* (the copy leaves big as it was: its
                                            * pattern repeats every 256 bytes) */
        double kbw_2m = 0, cbw_2m = 0;
        if (direct) {
            kbw_wide = launch_gbs(4, (uintptr_t)big, ksrc_row, bulk, 2048, empty);
            kbw_self = launch_gbs(5, (uintptr_t)big + bulk / 2, big, bulk / 2, 2048, empty);
            if (bulk > PUT2M) {
                kbw_2m = launch_gbs(4, (uintptr_t)big, ksrc_row, PUT2M, 256, empty);
                cbw_2m = (double)PUT2M / cpu_time(cpu_put2m, (uint64_t *)big, 0) / 1e9;
            }
        }
        if (direct && probe)
            probe_d2d(big, ksrc_row);
        char mb[24];
        snprintf(mb, sizeof mb, "%zuK", bulk >> 10);
        printf("%-7s put8+quiet us  kernel %8.2f  cpu %8.2f  ratio cpu/kernel %.3f\n", tier,
               kput, cput, cput / kput);
        printf("%-7s put4K+quiet us kernel %8.2f  cpu %8.2f  ratio cpu/kernel %.3f\n", tier,
               kput4k, cput4k, cput4k / kput4k);
        if (waits)
            printf("%-7s get4K us       kernel %8.2f  cpu %8.2f  ratio cpu/kernel %.3f\n", tier,
                   kget4k, cget4k, cget4k / kget4k);
        if (waits)
            printf("%-7s g8 us          kernel %8.2f  cpu %8.2f  ratio cpu/kernel %.3f\n", tier,
                   kg, cg, cg / kg);
        printf("%-7s rate Mops      kernel %8.3f  cpu %8.3f  ratio kernel/cpu %.4f\n", tier,
               krate, crate, krate / crate);
        char how[96];
        struct uvas_ptr_info si = {0};
        uvas_query(ksrc_row, &si); /* the source's residence after the launches */
        const char *from = si.residence == UVAS_RES_DEVICE ? "device" : "host";
        if (served) /* the rest went directly, once the block was lent (host: after
                     * UVAS_LEASE_HOST_AFTER requests in the run) */
            snprintf(how, sizeof how, "%llu requests through the host, from %s memory", served,
                     from);
        else
            snprintf(how, sizeof how, "direct, from %s memory", from);
        printf("%-7s put%-6s GB/s kernel %8.4f  cpu %8.3f  ratio kernel/cpu %.4f  (%s; %.2f "
               "GB/s by the device's clock)\n", tier, mb, kbw, cbw, kbw / cbw, how, kbw_dev);
        if (direct) {
            printf("%-7s put%-6s GB/s 2048 work-groups %.3f; PE 0's own copy (%zuK) %.3f "
                   "(device clock)\n", tier, mb, kbw_wide, bulk >> 11, kbw_self);
            printf("metric gpu_shmem.%s.kernel_put%sb_2048wg_gbs %.4f\nmetric gpu_shmem.%s."
                   "kernel_self_copy_gbs %.4f\n", tier, mb, kbw_wide, tier, kbw_self);
            if (kbw_2m > 0) {
                printf("%-7s put2048K  GB/s kernel %8.4f  cpu %8.3f  ratio kernel/cpu %.4f  "
                       "(256 work-groups, device clock)\n", tier, kbw_2m, cbw_2m,
                       kbw_2m / cbw_2m);
                printf("metric gpu_shmem.%s.kernel_put2048Kb_gbs %.4f\nmetric gpu_shmem.%s."
                       "cpu_put2048Kb_gbs %.4f\n", tier, kbw_2m, tier, cbw_2m);
            }
        }
        printf("metric gpu_shmem.%s.kernel_put8_us %.3f\nmetric gpu_shmem.%s.cpu_put8_us %.3f\n",
               tier, kput, tier, cput);
        printf("metric gpu_shmem.%s.kernel_put4k_us %.3f\nmetric gpu_shmem.%s.cpu_put4k_us %.3f\n",
               tier, kput4k, tier, cput4k);
        if (waits)
            printf("metric gpu_shmem.%s.kernel_get4k_us %.3f\nmetric gpu_shmem.%s.cpu_get4k_us "
                   "%.3f\n", tier, kget4k, tier, cget4k);
        if (waits)
            printf("metric gpu_shmem.%s.kernel_g8_us %.3f\nmetric gpu_shmem.%s.cpu_g8_us %.3f\n",
                   tier, kg, tier, cg);
        printf("metric gpu_shmem.%s.kernel_rate_mops %.4f\nmetric gpu_shmem.%s.cpu_rate_mops "
               "%.4f\n", tier, krate, tier, crate);
        printf("metric gpu_shmem.%s.kernel_put%sb_gbs %.4f\nmetric gpu_shmem.%s.cpu_put%sb_gbs "
               "%.4f\n", tier, mb, kbw, tier, mb, cbw);
        /* The kernel's bulk put arrived whole. */
        shmem_putmem(big, ksrc + 1, bulk, 1); /* not the kernel's bytes */
        shmem_quiet();
        launch_from(direct ? 4 : 3, (uintptr_t)big, ksrc_row, bulk, 0, direct ? 256 : 1);
        uint8_t *back = malloc(bulk);
        shmem_getmem(back, big, bulk, 1);
        size_t bad = 0;
        for (size_t b = 0; b < bulk; b++)
            if (back[b] != (uint8_t)(b * 7 + 1) && bad++ < 4)
                fprintf(stderr, "gpu-shmem-bench: %s: byte %zu of the kernel's bulk put is "
                        "%u, not %u (the CPU's put before it left %u)\n", tier, b, back[b],
                        (uint8_t)(b * 7 + 1), (uint8_t)((b + 1) * 7 + 1));
        if (bad) {
            fprintf(stderr, "gpu-shmem-bench: %s: %zu of %zu bytes wrong\n", tier, bad, bulk);
            exit(1);
        }
        free(back);
        fflush(stdout);
    }
    shmem_barrier_all();
    held[1] = held[2] = held[3] = NULL;
    nheld = 1;
    shmem_free(hsrc);
    shmem_free(big);
    shmem_free(word);
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-q"))
            reps = 3;
        else if (!strcmp(argv[a], "-p"))
            probe = true;
        else if (!strcmp(argv[a], "-d") && a + 1 < argc && atoi(argv[a + 1]) > 0)
            d2d = (size_t)atoi(argv[++a]) << 20;
    }
    shmem_init();
    if (shmem_n_pes() < 2) {
        fprintf(stderr, "gpu-shmem-bench: run with 2 PEs (mpirun -np 2)\n");
        shmem_finalize();
        return 77;
    }
    if (uvas_kernel_load(spv, sizeof spv, "main", &k)) {
        fprintf(stderr, "gpu-shmem-bench: no kernels here: %s\n", uvas_last_error());
        shmem_finalize();
        return 77;
    }
    struct uvas_gpu_info info;
    uvas_gpu_info(&info);
    size_t kn = (d2d > BIG ? d2d : BIG) + 64; /* the g row's sum lands past BIG */
    ksrc = uvas_malloc(kn);
    for (size_t b = 0; b < kn; b++)
        ksrc[b] = (uint8_t)(b * 7 + 1);
    held[0] = ksrc;
    if (shmem_my_pe() == 0)
        printf("gpu-shmem-bench: 2 PEs, target at PE 1, median of %d%s\n", reps,
               info.fault_waits ? "" : " (kernels cannot wait here: no g row)");
    const char *tr = getenv("UVAS_TRANSPORT");
    ucx = tr && !strcmp(tr, "ucx");
    row(ucx ? "ucx_host" : "host", SHMEM_MALLOC_HOST_HEAP, info.fault_waits);
    if (shmemx_device_present())
        row(ucx ? "ucx_device" : "device", SHMEM_MALLOC_DEVICE_HEAP, info.fault_waits);
    uvas_kernel_free(k);
    uvas_free(ksrc);
    shmem_finalize();
    return 0;
}
