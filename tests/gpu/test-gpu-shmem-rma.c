/*
 * Kernels' OpenSHMEM calls (include/shmem.glsl), on 1, 2 and 4 PEs and over
 * UCX: every PE launches tests/gpu/shmem-rma.comp, whose phases put, get
 * and update the right neighbour's and PE 0's symmetric memory; each PE
 * then checks, on the CPU, what its left neighbour's kernel wrote into it
 * and what its own kernel fetched.
 *
 * Every device:
 *   0  p of 32- and 64-bit elements
 *   1  putmem at odd offsets and sizes, and by whole work-groups, then quiet
 *   2  non-fetching atomics: every PE's invocations and every PE's CPU
 *      thread add to PE 0's counter at the same time (exact total); add,
 *      or, set, inc on the right's words
 *   3  put with signal to the right, then quiet
 *   4  4 requests per invocation: the ring (4096 slots) wraps four times
 *      where kernels can wait, and fills without waiting where not
 *   5  this PE's memory the kernel holds: stores, loads, atomics there
 *   race  rounds of puts into a neighbour that migrates the target meanwhile
 *   6  bad requests fail the launch with the kernel and the call named: a PE
 *      out of range, an address outside the range, one in no allocation;
 *      and, before shmem_init, any request
 * Where kernels can wait (every GPU; not lavapipe, which bounds loops):
 *   10 g, and a g after a p to the same word (requests of an invocation
 *      take effect in order)
 *   11 getmem at odd offsets and sizes, and by work-group
 *   12 fetching atomics: fetch_add (values distinct, total exact),
 *      compare_swap (one winner per word), fetch_xor, swap
 *   13 put with signal to this PE, waited for in the kernel
 *   14 a host-resident word of this PE the kernel holds, which a CPU
 *      thread sets while the kernel runs: read, waited for, and the data
 *      written before it read after (a GPU keeps host memory it read in
 *      its cache for the run: these reads must go to the host)
 * Where they cannot, phase 10 fails the launch, saying why.
 *
 * The symmetric buffers are not kernel arguments the launch scans
 * (UVAS_KERNEL_NO_SCAN; the local ones are held with uvas_gpu_hold for
 * each launch): a kernel reaches other PEs' copies through the host, and
 * its own only where it holds them (phase 5).
 */
#include <pthread.h>
#include <shmem.h>
#include <stdatomic.h>
#include <unistd.h>

#include "check.h"

#define N 256            /* invocations of phases 0, 2, 5, 10, 12 and the race */
#define SLOTS 4096       /* the ring's (gpu/ring.h) */
#define BOX (4 * SLOTS)  /* u32 words a PE receives in phase 4, at most */
#define GSRC 1024        /* u32 pattern words */
#define BYTES 16384
#define OUT 24576
#define COUNTER (16 + 16 * N)
#define CPU_ADDS 1000
#define ROUNDS 32

struct args {
    uint64_t box, gsrc, bytes, counter, src, out, target, hsrc;
    uint32_t n, phase;
    int32_t peer;
    uint32_t pad;
};

static uvas_kernel_t *k;
static struct args A;
static const void *local[4]; /* this PE's src, out, hsrc (and phase 14's word): held */
static size_t nlocal = 3;
static int me, np, left, right;
static bool waits; /* kernels can wait on this device */

static uint32_t pattern(int pe, uint32_t i)
{
    return (uint32_t)pe * 100000u + i;
}

static uint8_t srcpat(int pe, size_t b)
{
    return (uint8_t)(b * 7 + (size_t)pe * 13);
}

/* For the watchdog's report: in a phase's launch, or after it (its
 * barriers and checks, the next phase's set-up). */
static const char *const where[15][2] = {
    [0] = {"phase 0's launch (p)", "after phase 0"},
    [1] = {"phase 1's launch (putmem)", "after phase 1"},
    [2] = {"phase 2's launch (atomics beside CPUs')", "after phase 2"},
    [3] = {"phase 3's launch (put with signal)", "after phase 3"},
    [4] = {"phase 4's launch (the ring)", "after phase 4"},
    [5] = {"phase 5's launch (held memory)", "after phase 5"},
    [6] = {"phase 6's launch (a bad request)", "after phase 6"},
    [7] = {"a launch of the race", "in the race, between launches"},
    [10] = {"phase 10's launch (g)", "after phase 10"},
    [11] = {"phase 11's launch (getmem)", "after phase 11"},
    [12] = {"phase 12's launch (fetching atomics)", "after phase 12"},
    [13] = {"phase 13's launch (signal wait)", "after phase 13"},
    [14] = {"phase 14's launch (a host word set late)", "after phase 14"},
};

static int launch(uint32_t phase, uint32_t groups)
{
    tu_where(where[phase][0]);
    A.phase = phase;
    uvas_gpu_hold_t *h = NULL;
    if (local[0])
        CHECK_OK(uvas_gpu_hold(local, nlocal, &h));
    int rc = uvas_kernel_launch(k, (uint32_t[3]){groups, 1, 1}, &A, sizeof A, UVAS_KERNEL_NO_SCAN);
    if (h)
        uvas_gpu_release(h);
    tu_where(where[phase][1]);
    return rc;
}

/* ---- phase 14's CPU side: the data, then the word, while the kernel waits ------- */

static void *set_late(void *arg)
{
    uint64_t *w = arg;
    /* Late enough that the kernel has read the word once, as a rule (a
     * launch takes milliseconds; a kernel that reads it later only makes
     * the phase prove less, below). */
    usleep(200 * 1000);
    for (int b = 0; b < 64; b++)
        ((uint8_t *)(w + 1))[b] = (uint8_t)(b + 1);
    atomic_store_explicit((_Atomic uint64_t *)w, 7, memory_order_release);
    return NULL;
}

/* ---- phase 2's CPU side: this PE's thread adds to PE 0's counter too ---------- */

static void *cpu_adds(void *arg)
{
    uint64_t *counter = arg;
    for (int i = 0; i < CPU_ADDS; i++)
        shmem_uint64_atomic_add(counter, 1, 0);
    return NULL;
}

/* ---- the race: this PE's box moves between the tiers meanwhile ---------------- */

static volatile int race_stop;

static void *migrator(void *arg)
{
    uint32_t *box = arg;
    unsigned moves = 0;
    while (!__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE)) {
        int rc = uvas_migrate(box, BOX * 4, moves % 2 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE, 0);
        CHECK(rc == UVAS_OK || rc == UVAS_ERR_NOMEM, "migrating the box: %s", uvas_last_error());
        moves++;
        /* A breath between moves: every put that meets one waits for it. */
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    return (void *)(uintptr_t)moves;
}

static void expect_refused(int rc, int status, const char *what, const char *says)
{
    const char *m = uvas_last_error();
    CHECK(rc == status, "%s: the launch returned %d (%s), expected %d; %s", what, rc,
          uvas_strerror(rc), status, m);
    CHECK(strstr(m, "kernel 'main'") && strstr(m, says),
          "%s: the message does not name the kernel and '%s': %s", what, says, m);
}

int main(void)
{
    /* The first launch compiles the shader: lavapipe JITs it at the first
     * dispatch, every PE at once when the cache is cold (CI): minutes on
     * a loaded 2-core machine, not a hang (370-420 s for 4 PEs beside the
     * UCX test's 2 at a65b7bd: over the 400 s this was). 150 s for the
     * rest. All under meson's 1200 s, with time for the report. */
    tu_watchdog(1000);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    /* The range's base is a specialization constant of every kernel
     * (include/uvas.glsl), and under ThreadSanitizer the kernel picks it
     * (uvas/config.h) anew for each uvas_init: the shader was compiled
     * from scratch at both launches (lavapipe JITs it at the first
     * dispatch, minutes under TSan) and never found in Mesa's shader
     * cache. A fixed base in TSan's high application region makes the
     * second compile, and later runs', a cache hit. */
    tu_tsan_base();

    /* A program that is no PE: requests are refused. */
    CHECK_OK(uvas_init(NULL));
    k = tu_kernel("shmem-rma");
    uint32_t *scratch = uvas_malloc(4096);
    A = (struct args){.target = (uintptr_t)scratch, .peer = 1};
    expect_refused(launch(6, 1), UVAS_ERR_NOT_INIT, "before shmem_init", "call shmem_init");
    tu_watchdog(150);
    uvas_free(scratch);
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());

    tu_where("shmem_init");
    shmem_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    left = (me + np - 1) % np;
    right = (me + 1) % np;
    k = tu_kernel("shmem-rma");
    struct uvas_gpu_info info;
    CHECK_OK(uvas_gpu_info(&info));
    waits = info.fault_waits;
    uint32_t *box = shmem_malloc(BOX * 4), *gsrc = shmem_malloc(GSRC * 4);
    uint8_t *bytes = shmem_malloc(BYTES);
    uint64_t *counter = shmem_malloc(COUNTER + 4096);
    int *wins = shmem_malloc(sizeof(int));
    /* Host memory, which kernels reach through the ring until a run lends
     * it (UVAS_LEASE_HOST_AFTER); and a source in host memory that never
     * moves (the host heap), which kernels' puts over a request's payload
     * send by reference where kernels wait. */
    uint8_t *hb = shmem_malloc_with_hints(8192, SHMEM_MALLOC_HOST_HEAP);
    uint8_t *hsrc = shmem_malloc_with_hints(4096, SHMEM_MALLOC_HOST_HEAP);
    uint8_t *src = uvas_malloc(BYTES), *out = uvas_malloc(OUT);
    CHECK(box && gsrc && bytes && counter && wins && hb && hsrc && src && out,
          "allocations: %s", uvas_last_error());
    for (size_t b = 0; b < 4096; b++)
        hsrc[b] = srcpat(me, b);
    for (uint32_t j = 0; j < GSRC; j++)
        gsrc[j] = pattern(me, j);
    for (size_t b = 0; b < BYTES; b++)
        src[b] = srcpat(me, b);
    memset(box, 0, BOX * 4);
    memset(bytes, 0, BYTES);
    memset(counter, 0, COUNTER + 4096);
    memset(out, 0, OUT);
    *wins = 0;
    local[0] = src;
    local[1] = out;
    local[2] = hsrc;
    A = (struct args){(uintptr_t)box, (uintptr_t)gsrc, (uintptr_t)bytes, (uintptr_t)counter,
                      (uintptr_t)src, (uintptr_t)out, 0, (uintptr_t)hsrc, N, 0, 0, 0};
    const uint32_t *o32 = (const uint32_t *)out;
    const uint64_t *o64 = (const uint64_t *)out;
    const uint64_t *b64 = (const uint64_t *)bytes;
    const uint32_t *c32 = (const uint32_t *)counter;
    uint32_t rg[GSRC]; /* the right's gsrc */
    for (uint32_t j = 0; j < GSRC; j++)
        rg[j] = pattern(right, j);
    const uint8_t *gb = (const uint8_t *)rg;
    shmem_barrier_all();

    /* 0: p */
    CHECK_OK(launch(0, N / 64));
    shmem_barrier_all();
    for (uint32_t i = 0; i < N; i++) {
        CHECK_EQ(box[i], pattern(left, i), "phase 0: box[i] from the left's shmem_uint32_p");
        CHECK_EQ(b64[i], (uint64_t)pattern(left, i) << 20, "phase 0: shmem_uint64_p");
    }

    /* 1: putmem; the work-groups' puts into the right's host memory (hb),
     * through the ring: each of the 4 groups makes at most one request for
     * its invocation's 301 bytes, one per 448-byte piece of its 8000 (18)
     * and one quiet, group 0 at most 7 for its 2999 bytes (on GPUs both
     * go as one request naming the source, from host memory: 2 a group)
     * and group 1 one for its typed put. Every invocation
     * moving the whole buffer (what a work-group size folded to 1 in
     * shmem.glsl did) makes 171. */
    memset(bytes, 0, BYTES);
    memset(hb, 0, 8192);
    shmem_barrier_all();
    struct uvas_stats s0, s1;
    uint64_t target = A.target;
    A.target = (uintptr_t)hb;
    uvas_stats_get(&s0);
    CHECK_OK(launch(1, 4));
    uvas_stats_get(&s1);
    A.target = target;
    shmem_barrier_all();
    CHECK(s1.kernel_requests - s0.kernel_requests <= 4 * (1 + 18 + 1) + 7 + 1,
          "phase 1: %llu requests through the ring for 4 work-groups' puts (at most 88)",
          (unsigned long long)(s1.kernel_requests - s0.kernel_requests));
    for (size_t b = 0; b < 104; b++)
        CHECK_EQ(bytes[9200 + b], srcpat(left, 128 + b), "phase 1: shmem_uint64_put_nbi");
    CHECK_EQ(bytes[9304], 0, "phase 1: the byte after shmem_uint64_put_nbi");
    for (size_t b = 0; b < 2999; b++)
        CHECK_EQ(bytes[5001 + b], srcpat(left, 7 + b), "phase 1: a 2999-byte putmem");
    CHECK_EQ(bytes[5000], 0, "phase 1: the byte before the 2999-byte putmem");
    CHECK_EQ(bytes[8000], 0, "phase 1: the byte after the 2999-byte putmem");
    for (int w = 0; w < 4; w++) {
        for (size_t b = 0; b < 301; b++)
            CHECK_EQ(bytes[1000 * w + 3 + b], srcpat(left, 1 + w + b), "phase 1: putmem");
        CHECK_EQ(bytes[1000 * w + 2], 0, "phase 1: the byte before a putmem");
        CHECK_EQ(bytes[1000 * w + 304], 0, "phase 1: the byte after a putmem");
    }
    for (size_t b = 0; b < 8000; b++)
        CHECK_EQ(hb[b], srcpat(left, b), "phase 1: shmem_putmem_work_group");

    /* 2: non-fetching atomics, with every PE's CPU adding to PE 0's counter */
    shmem_barrier_all();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, cpu_adds, counter) == 0, "pthread_create");
    CHECK_OK(launch(2, N / 64));
    pthread_join(t, NULL);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(counter[0], (uint64_t)np * (N + CPU_ADDS),
                 "phase 2: PE 0's counter (kernels' and CPUs' adds)");
    CHECK_EQ((int32_t)c32[2], -N, "phase 2: the left's int atomic adds");
    for (uint32_t i = 0; i < N; i++) {
        CHECK_EQ(c32[4 + i], 1, "phase 2: the left's inc");
        CHECK_EQ(counter[2 + N + i], pattern(left, i), "phase 2: the left's set");
    }
    for (uint32_t i = 0; i < N / 32; i++)
        CHECK_EQ(c32[4 + N + i], 0xffffffffu, "phase 2: the left's or");

    /* 3: put with signal */
    memset(counter, 0, COUNTER);
    memset(bytes, 0, BYTES);
    shmem_barrier_all();
    CHECK_OK(launch(3, 1));
    shmem_barrier_all();
    CHECK_EQ(counter[1], (uint64_t)left + 1, "phase 3: the left's SHMEM_SIGNAL_SET");
    for (size_t b = 0; b < 700; b++)
        CHECK_EQ(bytes[64 + b], srcpat(left, 64 + b), "phase 3: the left's signalled data");

    /* 4: through the ring: four laps where kernels wait for a free slot,
     * one where they cannot */
    uint32_t ring_inv = waits ? SLOTS : SLOTS / 4;
    memset(box, 0, BOX * 4);
    shmem_barrier_all();
    A.n = ring_inv;
    CHECK_OK(launch(4, ring_inv / 64));
    A.n = N;
    shmem_barrier_all();
    for (uint32_t j = 0; j < 4 * ring_inv; j++)
        CHECK_EQ(box[j], pattern(left, j), "phase 4: puts through the ring");

    /* The race: rounds of puts into the right's box, which moves meanwhile
     * (one request per invocation: a kernel that never waits, so a device
     * with one queue, where migrations wait for the kernel, cannot tie
     * kernels, migrations and the proxies of two PEs in a knot). */
    memset(box, 0, BOX * 4);
    shmem_barrier_all();
    race_stop = 0;
    double race_t0 = tu_now_s();
    CHECK(pthread_create(&t, NULL, migrator, box) == 0, "pthread_create");
    for (int r = 0; r < ROUNDS; r++) {
        A.peer = r;
        CHECK_OK(launch(7, N / 64));
    }
    shmem_quiet();
    shmem_barrier_all();
    __atomic_store_n(&race_stop, 1, __ATOMIC_RELEASE);
    void *moves;
    pthread_join(t, &moves);
    double race_s = tu_now_s() - race_t0;
    for (uint32_t j = 0; j < ROUNDS * N; j++)
        CHECK_EQ(box[j], pattern(left, j), "race: a put into a box that migrated meanwhile");

    /* 5: this PE's held memory, straight */
    memset(src, 0, 16);
    memset(out, 0, OUT);
    CHECK_OK(launch(5, N / 64));
    for (uint32_t i = 0; i < N; i++)
        CHECK_EQ(o32[i], pattern(me, i), "phase 5: p to this PE");
    CHECK_EQ(((uint64_t *)src)[0], N, "phase 5: g after p, counted by atomic adds");
    CHECK_EQ(((uint32_t *)src)[2], N, "phase 5: inc on this PE");
    for (size_t b = 0; b < BYTES; b++)
        src[b] = srcpat(me, b);

    if (waits) {
        /* 10: g */
        memset(out, 0, OUT);
        shmem_barrier_all();
        CHECK_OK(launch(10, N / 64));
        for (uint32_t i = 0; i < N; i++) {
            CHECK_EQ(o32[i], pattern(right, i), "phase 10: shmem_uint32_g of the right's gsrc");
            CHECK_EQ(o32[N + i], pattern(me, i), "phase 10: shmem_uint64_g after a p there");
        }
        /* 11: getmem */
        memset(out, 0, OUT);
        CHECK_OK(launch(11, 4));
        for (int w = 0; w < 4; w++) {
            for (size_t b = 0; b < 203; b++)
                CHECK_EQ(out[1000 * w + 1 + b], gb[5 + b], "phase 11: getmem");
            CHECK_EQ(out[1000 * w], 0, "phase 11: the byte before a getmem");
            CHECK_EQ(out[1000 * w + 204], 0, "phase 11: the byte after a getmem");
        }
        for (size_t b = 0; b < 4000; b++)
            CHECK_EQ(out[16384 + b], gb[b], "phase 11: shmem_getmem_work_group");
        /* 12: fetching atomics, with every PE's CPU adding meanwhile */
        memset(counter, 0, COUNTER);
        memset(out, 0, OUT);
        shmem_barrier_all();
        CHECK(pthread_create(&t, NULL, cpu_adds, counter) == 0, "pthread_create");
        CHECK_OK(launch(12, N / 64));
        pthread_join(t, NULL);
        const uint64_t total = (uint64_t)np * (N + CPU_ADDS);
        static uint8_t seen[64 * (N + CPU_ADDS)];
        int won = 0;
        for (uint32_t i = 0; i < N; i++) {
            CHECK(o64[i] < total && !seen[o64[i]], "phase 12: fetch_add returned %llu (twice, "
                  "or past the total %llu)", (unsigned long long)o64[i],
                  (unsigned long long)total);
            seen[o64[i]] = 1;
            uint32_t old = o32[2 * N + i];
            CHECK(old <= (uint32_t)np, "phase 12: compare_swap fetched %u", old);
            won += old == 0;
            CHECK(!(o32[3 * N + i] & (1u << (i % 32))), "phase 12: fetch_xor fetched %#x, with "
                  "invocation %u's own bit already set", o32[3 * N + i], i);
            CHECK_EQ(o64[2 * N + i], 0, "phase 12: swap fetched what was there");
        }
        shmem_int_atomic_add(wins, won, 0);
        shmem_barrier_all();
        if (me == 0) {
            CHECK_EQ(counter[0], total, "phase 12: PE 0's counter (kernels' and CPUs' adds)");
            CHECK_EQ(*wins, N, "phase 12: compare_swap winners over all PEs, one per word");
        }
        for (uint32_t i = 0; i < N / 32; i++)
            CHECK_EQ(c32[4 + N + i], 0xffffffffu, "phase 12: the left's fetch_xor");
        for (uint32_t i = 0; i < N; i++) {
            CHECK_EQ(counter[2 + N + i], (uint64_t)pattern(left, i) + 1, "phase 12: the left's swap");
            uint32_t slot = shmem_uint32_g(&c32[4 + i], 0);
            if (o32[2 * N + i] == 0)
                CHECK_EQ(slot, (uint32_t)me + 1, "phase 12: a word this PE's compare_swap won");
        }
        /* 13: put with signal to this PE, waited for in the kernel */
        memset(counter, 0, COUNTER);
        memset(bytes, 0, BYTES);
        memset(out, 0, OUT);
        shmem_barrier_all();
        CHECK_OK(launch(13, 1));
        CHECK_EQ(o64[0], 5, "phase 13: the signal the kernel waited for");
        for (size_t b = 0; b < 64; b++)
            CHECK_EQ(out[8 + b], srcpat(me, b), "phase 13: the data before its signal");
        /* 14: a held host-resident word, set by a CPU thread during the run */
        uint64_t *hw = shmem_malloc_with_hints(128, SHMEM_MALLOC_HOST_HEAP);
        CHECK(hw != NULL, "shmem_malloc_with_hints: %s", uvas_last_error());
        memset(hw, 0, 128);
        memset(out, 0, OUT);
        local[3] = hw;
        nlocal = 4;
        A.target = (uintptr_t)hw;
        pthread_t setter;
        CHECK(pthread_create(&setter, NULL, set_late, hw) == 0, "pthread_create");
        CHECK_OK(launch(14, 1));
        pthread_join(setter, NULL);
        nlocal = 3;
        if (o64[0] != 0)
            printf("phase 14: the kernel first read the word after the host set it: the "
                   "stale read was not tried this time\n");
        CHECK_EQ(o64[1], 7, "phase 14: the word the kernel waited for");
        for (int b = 0; b < 64; b++)
            CHECK_EQ(out[16 + b], b + 1, "phase 14: the data set before the word");
        shmem_free(hw);
    } else {
        /* A call that needs an answer, where kernels cannot wait. */
        memset(out, 0, OUT);
        expect_refused(launch(10, N / 64), UVAS_ERR_INVAL, "a g where kernels cannot wait",
                       "cannot wait there");
        for (uint32_t i = 0; i < N; i++)
            CHECK_EQ(o32[i], 0, "a g that could not wait returns 0");
    }
    shmem_barrier_all();

    /* 6: bad requests */
    A.target = (uintptr_t)box;
    A.peer = np + 3;
    expect_refused(launch(6, 1), UVAS_ERR_INVAL, "a PE out of range", "out of range");
    A.target = 0x1000;
    A.peer = right;
    expect_refused(launch(6, 1), UVAS_ERR_NOT_OWNED, "an address outside the range",
                   "not symmetric");
    A.target = (uintptr_t)box + (512u << 20); /* in the range, in no allocation */
    expect_refused(launch(6, 1), UVAS_ERR_NOT_OWNED, "an address in no allocation",
                   "not inside a live symmetric allocation");
    /* and the next launch is whole again */
    memset(box, 0, BOX * 4);
    shmem_barrier_all();
    CHECK_OK(launch(0, N / 64));
    shmem_barrier_all();
    for (uint32_t i = 0; i < N; i++)
        CHECK_EQ(box[i], pattern(left, i), "after the refusals: box[i]");

    tu_where("the end (frees, shmem_finalize)");
    uvas_kernel_free(k);
    uvas_free(src);
    uvas_free(out);
    shmem_barrier_all();
    shmem_free(wins);
    shmem_free(hb);
    shmem_free(hsrc);
    shmem_free(counter);
    shmem_free(bytes);
    shmem_free(gsrc);
    shmem_free(box);
    shmem_finalize();
    if (me == 0)
        printf("test-gpu-shmem-rma: %d PE%s: puts, work-group puts, atomics beside "
               "CPUs', put with signal, %u requests through the ring, puts racing %lu "
               "migrations (%.1f s), refusals named; %s\n", np, np == 1 ? "" : "s",
               4 * ring_inv, (unsigned long)(uintptr_t)moves, race_s,
               waits ? "gets, fetching atomics and waits in kernels"
                     : "calls that wait refused (this device bounds shader loops)");
    return 0;
}
