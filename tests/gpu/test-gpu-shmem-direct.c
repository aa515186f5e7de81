/*
 * Kernels reaching other PEs' device memory on the same GPU directly
 * (include/shmem.glsl over transport/pe/lease.c), under mpirun (2 and 4
 * PEs). Every PE's symmetric buffers are migrated to the device; each PE
 * launches tests/gpu/shmem-direct.comp, whose phases:
 *   0  p, and work-group puts, into the right neighbour's buffer, then
 *      quiet: the left's patterns arrive, the launch was lent blocks
 *      (kernel_peer_leases moved) and the host served none of the calls
 *      (kernel_requests did not); the owner counted the left PE's
 *      accesses of the box's block, all of them its kernels'
 *      (UVAS_PEER_COUNTS=1: the leases);
 *   1  g and work-group getmem from the right's buffer: the right's
 *      pattern, none through the host (where a kernel cannot wait,
 *      lavapipe, the host would have refused them);
 *   2  every PE's invocations add to PE 0's device-resident counter while
 *      every PE's CPU thread adds to it too (the CPU's atomics take the
 *      block to the host, which ends the leases first): the total exact;
 *   3  rounds of puts into the right's buffer while the right migrates it
 *      between the tiers (its own kernel does not hold it): the last
 *      round's values, every one (the owner's transitions took the leases
 *      back, or the puts went through the host). The first round goes
 *      through the host, which lends the blocks for the next (where a
 *      kernel cannot wait, one round: all through the host);
 *   4  p into the right's host-resident buffer, and an atomic add to its
 *      host-resident counter, one PE after another: the puts directly
 *      (the launch was lent the host blocks for stores:
 *      UVAS_LEASE_HOST_AFTER=0 here), the atomics through the host (one
 *      request each: the owner's CPU makes every atomic on a host-resident
 *      word), both arrived whole.
 * Phases 0-3 lend host-resident blocks up front too (phase 3's target is
 * on the host half the time).
 */
#include <pthread.h>
#include <shmem.h>
#include <unistd.h>

#include "uvas_policy.h"

#include "check.h"

#define N 1024         /* words per buffer, invocations of phases 1-3 */
#define CPU_ADDS 500
#define ROUNDS 24

struct args {
    uint64_t box, gsrc, counter, out;
    uint32_t n, phase, rounds, pad;
};

static uvas_kernel_t *k;
static struct args A;
static int me, np, left, right;

static uint32_t pattern(int pe, uint32_t i)
{
    return (uint32_t)pe * 100000u + i;
}

static void launch(uint32_t phase, unsigned flags)
{
    static const char *const where[] = {"phase 0's launch", "phase 1's launch",
                                        "phase 2's launch", "phase 3's launch",
                                        "phase 4's launch"};
    tu_where(where[phase]);
    A.phase = phase;
    int rc = uvas_kernel_launch(k, (uint32_t[3]){N / 64, 1, 1}, &A, sizeof A, flags);
    CHECK(rc == UVAS_OK, "PE %d, phase %u: %s", me, phase, uvas_last_error());
}

static void *cpu_adds(void *arg)
{
    for (int i = 0; i < CPU_ADDS; i++)
        shmem_uint64_atomic_add(arg, 1, 0);
    return NULL;
}

static volatile int race_stop;

static void *migrator(void *arg)
{
    unsigned moves = 0;
    while (!__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE)) {
        int rc = uvas_migrate(arg, N * 4, moves % 2 ? UVAS_LOC_DEVICE : UVAS_LOC_HOST, 0);
        CHECK(rc == UVAS_OK || rc == UVAS_ERR_NOMEM, "migrating the box: %s",
              uvas_last_error());
        moves++;
        nanosleep(&(struct timespec){0, 300000}, NULL);
    }
    return (void *)(uintptr_t)moves;
}

static void to_device(void *p, size_t n)
{
    CHECK_OK(uvas_migrate(p, n, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(p, n, UVAS_RES_DEVICE, "migrated to the device");
}

int main(void)
{
    tu_watchdog(260); /* under meson's 300 s, with time for the report */
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    tu_setenv("UVAS_LEASE_HOST_AFTER", "0"); /* host blocks lent up front: phase 4 */
    tu_setenv("UVAS_PEER_COUNTS", "1");
    tu_tsan_base(); /* a TSan build lets the kernel choose it: PEs need one */
    shmem_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    if (np < 2) {
        shmem_finalize();
        SKIP("needs 2 PEs or more (mpirun -np 2): it reaches another PE's memory");
    }
    left = (me + np - 1) % np;
    right = (me + 1) % np;
    if (!shmemx_device_present()) {
        shmem_finalize();
        SKIP("no device tier here: there is no device memory to lend");
    }
    k = tu_kernel("shmem-direct");
    struct uvas_gpu_info info;
    CHECK_OK(uvas_gpu_info(&info));
    uint32_t *box = shmem_malloc(N * 4), *gsrc = shmem_malloc(N * 4);
    uint64_t *counter = shmem_malloc(64);
    uint32_t *out = uvas_malloc(2 * N * 4);
    CHECK(box && gsrc && counter && out, "allocations: %s", uvas_last_error());
    for (uint32_t i = 0; i < N; i++)
        gsrc[i] = pattern(me, i);
    memset(box, 0, N * 4);
    memset(out, 0, 2 * N * 4);
    *counter = 0;
    to_device(box, N * 4);
    to_device(gsrc, N * 4);
    to_device(counter, 64);
    /* Where a kernel cannot wait, every call after its first through the
     * ring stays there and none waits for a free slot: a round (a put and
     * a quiet per invocation) is what the ring takes. */
    uint32_t rounds = info.fault_waits ? ROUNDS : 1;
    A = (struct args){(uintptr_t)box, (uintptr_t)gsrc, (uintptr_t)counter, (uintptr_t)out, N,
                      0, rounds, 0};
    shmem_barrier_all();

    /* 0: puts */
    struct uvas_stats s0 = tu_stats();
    launch(0, 0);
    struct uvas_stats s1 = tu_stats();
    shmem_barrier_all();
    for (uint32_t i = 0; i < N; i++)
        CHECK(box[i] == pattern(left, i), "PE %d: box[%u] = %u after the left's puts, expected "
              "%u", me, i, box[i], pattern(left, i));
    CHECK(s1.kernel_peer_leases > s0.kernel_peer_leases, "PE %d: the launch was lent no block of "
          "PE %d's device memory", me, right);
    CHECK(s1.kernel_requests == s0.kernel_requests, "PE %d: %llu of the kernel's calls went "
          "through the host, none should have", me,
          (unsigned long long)(s1.kernel_requests - s0.kernel_requests));
    struct uvas_range_desc rd = tu_range();
    size_t bb = (size_t)((char *)box - (char *)rd.base) / rd.block_size;
    uint32_t by_left = uvas_policy_peer_accesses(bb, left);
    uint32_t kernels = uvas_policy_peer_kernel_accesses(bb, left);
    CHECK(kernels >= 1 && kernels == by_left, "PE %d: the left PE's accesses of the box's "
          "block: %u, of which its kernels' %u (expected at least one, all its kernels')",
          me, by_left, kernels);
    printf("PE %d: phase 0, %llu blocks lent; the left's kernels reached the box's block %u "
           "times\n", me, (unsigned long long)(s1.kernel_peer_leases - s0.kernel_peer_leases),
           kernels);

    /* 1: gets (the CPU read the box: back on the device first) */
    to_device(box, N * 4);
    shmem_barrier_all();
    struct uvas_stats g0 = tu_stats();
    launch(1, 0);
    CHECK(tu_stats().kernel_requests == g0.kernel_requests, "PE %d: the gets went through the "
          "host", me);
    for (uint32_t i = 0; i < N; i++) {
        CHECK(out[i] == pattern(right, i), "PE %d: g of the right's word %u: %u, expected %u",
              me, i, out[i], pattern(right, i));
        CHECK(out[N + i] == pattern(right, i), "PE %d: getmem of the right's word %u: %u, "
              "expected %u", me, i, out[N + i], pattern(right, i));
    }
    printf("PE %d: phase 1, gets %s\n", me,
           info.fault_waits ? "(direct or through the host)" : "(directly: the host refuses them here)");
    shmem_barrier_all();

    /* 2: kernels' and CPUs' atomics on one device-resident counter */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, cpu_adds, counter) == 0, "thread");
    launch(2, 0);
    pthread_join(t, NULL);
    shmem_barrier_all();
    /* Read atomically: the peers' adds were made here by our progress
     * thread, and the barrier orders them before this read through the
     * other processes, where ThreadSanitizer cannot follow (a CI report). */
    uint64_t total = __atomic_load_n(counter, __ATOMIC_ACQUIRE);
    if (me == 0)
        CHECK(total == (uint64_t)np * (N + CPU_ADDS), "PE 0: the counter is %llu, expected "
              "%llu (%d PEs x (%d kernel adds + %d CPU adds))", (unsigned long long)total,
              (unsigned long long)np * (N + CPU_ADDS), np, N, CPU_ADDS);
    shmem_barrier_all();

    /* 3: puts racing migrations of their target */
    to_device(box, N * 4);
    shmem_barrier_all();
    pthread_t mt;
    __atomic_store_n(&race_stop, 0, __ATOMIC_RELEASE);
    CHECK(pthread_create(&mt, NULL, migrator, box) == 0, "thread");
    struct uvas_stats r0 = tu_stats();
    /* Not scanned: this PE's kernel does not hold its own box, which moves. */
    launch(3, UVAS_KERNEL_NO_SCAN);
    struct uvas_stats r1 = tu_stats();
    shmem_barrier_all();
    __atomic_store_n(&race_stop, 1, __ATOMIC_RELEASE);
    void *moves;
    pthread_join(mt, &moves);
    shmem_barrier_all();
    for (uint32_t i = 0; i < N; i++) {
        uint32_t want = pattern(left, (rounds - 1) * N + i);
        CHECK(box[i] == want, "PE %d: box[%u] = %u after %u rounds of puts racing %u "
              "migrations, expected %u", me, i, box[i], rounds, (unsigned)(uintptr_t)moves, want);
    }
    printf("PE %d: phase 3, %u migrations of the target, %llu leases, %llu taken back early\n",
           me, (unsigned)(uintptr_t)moves,
           (unsigned long long)(r1.kernel_peer_leases - r0.kernel_peer_leases),
           (unsigned long long)(r1.kernel_peer_revokes - r0.kernel_peer_revokes));

    /* 4: the right's host memory: stores directly, atomics by its CPU */
    uint32_t *hbox = shmem_malloc_with_hints(N * 4, SHMEM_MALLOC_HOST_HEAP);
    uint64_t *hctr = shmem_malloc_with_hints(64, SHMEM_MALLOC_HOST_HEAP);
    CHECK(hbox && hctr, "host-heap allocations: %s", uvas_last_error());
    memset(hbox, 0, N * 4);
    *hctr = 0;
    shmem_barrier_all();
    A.box = (uintptr_t)hbox;
    A.counter = (uintptr_t)hctr;
    /* One PE at a time: a launch holds its own copies (scanned), which
     * would close their gates under a neighbour's lease meanwhile. */
    struct uvas_stats h0 = {0}, h1 = {0};
    for (int r = 0; r < np; r++) {
        if (r == me) {
            h0 = tu_stats();
            launch(4, 0); /* it is lent the right's copies of what it holds */
            h1 = tu_stats();
        }
        shmem_barrier_all();
    }
    for (uint32_t i = 0; i < N; i++)
        CHECK(hbox[i] == pattern(left, i), "PE %d: host-resident hbox[%u] = %u after the left's "
              "puts, expected %u", me, i, hbox[i], pattern(left, i));
    uint64_t hadds = __atomic_load_n(hctr, __ATOMIC_ACQUIRE); /* (as the counter above) */
    CHECK(hadds == N, "PE %d: the host-resident counter is %llu, expected %u (the left's kernel's "
          "adds)", me, (unsigned long long)hadds, N);
    CHECK(h1.kernel_peer_leases > h0.kernel_peer_leases, "PE %d: the launch was lent none of PE "
          "%d's host blocks", me, right);
    CHECK(h1.kernel_requests - h0.kernel_requests == N, "PE %d: %llu of the kernel's calls went "
          "through the host, expected the %u atomics alone (its puts go directly)", me,
          (unsigned long long)(h1.kernel_requests - h0.kernel_requests), N);
    printf("PE %d: phase 4, host memory: %u puts directly, %u atomics through the host\n", me,
           N, N);
    shmem_free(hctr);
    shmem_free(hbox);

    shmem_barrier_all();
    shmem_free(box);
    shmem_free(gsrc);
    shmem_free(counter);
    uvas_free(out);
    uvas_kernel_free(k);
    shmem_finalize();
    printf("test-gpu-shmem-direct: %d PEs: puts, gets, atomics beside CPUs', puts racing "
           "migrations, on device memory lent to kernels; puts into host memory lent to them: "
           "ok\n", np);
    return 0;
}
