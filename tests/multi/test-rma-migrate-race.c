/*
 * Puts, gets and atomics racing with migrations of their target blocks are
 * never lost. PE 0 owns a target array of NB blocks; a thread on PE 0
 * moves the whole array (and single blocks) between host and device with
 * uvas_migrate in a loop, while every other PE, for RUN_S seconds of rounds, adds 1 to
 * each of NC counters spread over the blocks (shmem_long_atomic_add, in an
 * order of its own), puts a round-specific pattern into its own slot of
 * every block (blocking and _nbi, alternately; slots straddling a block
 * boundary too) and reads one slot back with shmem_getmem. At the end
 * (quiet, barrier, migrator stopped) PE 0 checks every counter equals
 * exactly the number of adds and every slot holds its last pattern, and
 * reports the migrations (there must have been some each way).
 *
 * Run under mpirun with 2 or more PEs (4 oversubscribed on 2 cores takes a
 * few seconds); skips without a device tier.
 */
#include <shmem.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tests/check.h"
#include "tests/multi/pes.h"
#include "transport/pe/pe.h"

enum {
    NB = 4,         /* blocks in the target array */
    CPB = 16,       /* counters per block */
    NC = NB * CPB,  /* counters */
    R_MIN = 20,     /* rounds each writer does at least ... */
    R_MAX = 20000,  /* ... and at most; in between, it goes on for RUN_S seconds */
    S = 6000,       /* slot bytes (not a multiple of a page: pieces cross pages) */
    STR = 4096,     /* straddling slot bytes, half on each side of a boundary */
};
#define RUN_S 3.0
#define CTR_OFF 4096u
#define SLOT_OFF 8192u

static size_t blk;
static unsigned char *arr;
static atomic_int stop;
static unsigned long mig_calls, mig_errors;
static int mig_last_error;

static long *counter(int c)
{
    return (long *)(arr + (size_t)(c / CPB) * blk + CTR_OFF + (size_t)(c % CPB) * 64);
}

static unsigned char *slot(int writer, int b) /* writer >= 1 */
{
    return arr + (size_t)b * blk + SLOT_OFF + (size_t)(writer - 1) * S;
}

static unsigned char *straddle(int b) /* b < NB - 1: across the end of block b */
{
    return arr + (size_t)(b + 1) * blk - STR / 2;
}

static unsigned char pat(int p, int b, int r, size_t i)
{
    return (unsigned char)((p * 31 + b * 17 + r * 13 + i * 7 + (i >> 8)) | 1);
}

static void fill(unsigned char *dst, size_t n, int p, int b, int r)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pat(p, b, r, i);
}

static long first_bad(const unsigned char *src, size_t n, int p, int b, int r)
{
    for (size_t i = 0; i < n; i++)
        if (src[i] != pat(p, b, r, i))
            return (long)i;
    return -1;
}

static void *migrator(void *arg)
{
    (void)arg;
    size_t len = (size_t)NB * blk;
    for (unsigned long i = 0; !atomic_load(&stop); i++) {
        const void *p = arr;
        size_t n = len;
        if (i % 3 == 2) { /* now and then a single block */
            p = arr + (i / 3 % NB) * blk;
            n = blk;
        }
        int loc = (i % 2 == 0) ? UVAS_LOC_DEVICE : UVAS_LOC_HOST;
        int st = uvas_migrate(p, n, loc, 0);
        mig_calls++;
        if (st != UVAS_OK) {
            mig_errors++;
            mig_last_error = st;
        }
    }
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    if (getenv("UVAS_TEST_SINGLE"))
        SKIP("single-PE run requested");
    tu_deadline(100);
    unsetenv("SHMEM_SYMMETRIC_HEAP_DEFAULT"); /* the unified heap: blocks may move */
    int provided;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "shmem_init_thread");
    int me = shmem_my_pe(), npes = shmem_n_pes();
    tu_need_pes(2);
    if (shmemx_device_present() != 1) {
        shmem_finalize();
        SKIP("no device tier: nothing to migrate to");
    }
    struct uvas_range_desc rd = tu_range();
    blk = rd.block_size;
    int writers = npes - 1;
    if (blk < 4096 || SLOT_OFF + (size_t)writers * S + STR / 2 > blk) {
        shmem_finalize();
        SKIP("block size %zu too small for %d writers", blk, writers);
    }

    int *rounds = shmem_calloc((size_t)npes, sizeof(int)); /* each writer's, on PE 0 */
    CHECK(rounds != NULL, "shmem_calloc");
    arr = shmem_malloc((size_t)NB * blk);
    CHECK(arr != NULL, "shmem_malloc of %d blocks", NB);
    CHECK((uintptr_t)arr % blk == 0, "the array %p is not block-aligned", (void *)arr);
    if (me == 0)
        memset(arr, 0, (size_t)NB * blk); /* populated on the host */
    shmem_barrier_all();

    pthread_t th;
    struct uvas_stats s0, s1;
    double t0 = now();
    if (me == 0) {
        s0 = tu_stats();
        CHECK(pthread_create(&th, NULL, migrator, NULL) == 0, "pthread_create");
        /* the first moves are under way before the writers start */
        while (tu_stats().migrations[UVAS_RES_DEVICE] == s0.migrations[UVAS_RES_DEVICE])
            usleep(100);
    }
    shmem_barrier_all();

    if (me != 0) {
        static unsigned char buf[S], back[S], sbuf[STR];
        double start = now();
        int r;
        for (r = 0; r < R_MAX && (r < R_MIN || now() - start < RUN_S); r++) {
            for (int i = 0; i < NC; i++) {
                int c = (i * 7 + me * 13 + r) % NC; /* 7 is prime to NC: a permutation */
                shmem_long_atomic_add(counter(c), 1, 0);
            }
            for (int b = 0; b < NB; b++) {
                fill(buf, S, me, b, r);
                if (r % 2)
                    shmem_putmem_nbi(slot(me, b), buf, S, 0);
                else
                    shmem_putmem(slot(me, b), buf, S, 0);
            }
            for (int b = 0; b < NB - 1; b++)
                if (1 + b % writers == me) {
                    fill(sbuf, STR, me, NB + b, r);
                    shmem_putmem(straddle(b), sbuf, STR, 0);
                    }
            shmem_quiet();
            int gb = r % NB;
            memset(back, 0, S);
            shmem_getmem(back, slot(me, gb), S, 0);
            long bad = first_bad(back, S, me, gb, r);
            CHECK(bad < 0, "PE %d round %d: read back slot of block %d: byte %ld is %#x, "
                  "expected %#x", me, r, gb, bad, back[bad], pat(me, gb, r, (size_t)bad));
        }
        shmem_int_p(&rounds[me], r, 0);
    }
    shmem_quiet();
    shmem_barrier_all();
    double secs = now() - t0;

    if (me == 0) {
        atomic_store(&stop, 1);
        pthread_join(th, NULL);
        s1 = tu_stats();
        unsigned long to_dev = s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE];
        unsigned long to_host = s1.migrations[UVAS_RES_HOST] - s0.migrations[UVAS_RES_HOST];
        struct uvas_pe_stats ps;
        CHECK_OK(uvas_pe_stats_get(&ps));
        /* Counters: exactly one add per round from each writer. */
        long total = 0, rmin = R_MAX;
        for (int w = 1; w <= writers; w++) {
            CHECK(rounds[w] >= R_MIN, "PE %d reported %d rounds", w, rounds[w]);
            total += rounds[w];
            if (rounds[w] < rmin)
                rmin = rounds[w];
        }
        for (int c = 0; c < NC; c++)
            CHECK(*counter(c) == total, "counter %d (block %d) is %ld, expected %ld: atomic "
                  "adds were lost or doubled", c, c / CPB, *counter(c), total);
        /* Slots: the last round's pattern. */
        for (int w = 1; w <= writers; w++)
            for (int b = 0; b < NB; b++) {
                long bad = first_bad(slot(w, b), S, w, b, rounds[w] - 1);
                CHECK(bad < 0, "slot of PE %d in block %d: byte %ld is %#x, expected %#x: a "
                      "put was lost or torn", w, b, bad, slot(w, b)[bad],
                      pat(w, b, rounds[w] - 1, (size_t)bad));
            }
        for (int b = 0; b < NB - 1; b++) {
            int w = 1 + b % writers;
            long bad = first_bad(straddle(b), STR, w, NB + b, rounds[w] - 1);
            CHECK(bad < 0, "slot across blocks %d/%d (PE %d): byte %ld is %#x, expected %#x",
                  b, b + 1, w, bad, straddle(b)[bad], pat(w, NB + b, rounds[w] - 1, (size_t)bad));
        }
        /* Untouched bytes between the slots stay zero. */
        for (int b = 0; b < NB; b++) {
            unsigned char *gap = slot(writers + 1, b);
            size_t glen = (size_t)b * blk + blk - STR / 2 - (size_t)(gap - arr);
            if (b == NB - 1)
                glen += STR / 2;
            CHECK(tu_find_not(gap, glen, 0) == -1, "bytes after the slots of block %d changed",
                  b);
        }
        printf("test-rma-migrate-race: %d PEs, %.1f s: %ld atomic adds and %ld puts (at "
               "least %ld and %ld per writer) all arrived; %lu uvas_migrate calls (%lu failed%s%s) moved %lu blocks "
               "to the device and %lu to the host; %llu migrations waited for a peer's "
               "access; PE 0 served %llu active messages\n",
               npes, secs, total * NC, total * NB, rmin * NC, rmin * NB, mig_calls, mig_errors,
               mig_errors ? ", last: " : "", mig_errors ? uvas_strerror(mig_last_error) : "",
               to_dev, to_host, (unsigned long long)ps.gate_waits,
               (unsigned long long)ps.am_served);
        CHECK(to_dev > 0 && to_host > 0, "no migration happened while the writers ran "
              "(to device %lu, to host %lu)", to_dev, to_host);
        CHECK(mig_errors == 0, "%lu of %lu uvas_migrate calls failed (last: %s)", mig_errors,
              mig_calls, uvas_strerror(mig_last_error));
    }
    shmem_barrier_all();
    shmem_free(arr);
    shmem_free(rounds);
    shmem_finalize();
    return 0;
}
