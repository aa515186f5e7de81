/*
 * Soak: many threads on every PE doing RMA and atomics for a bounded time
 * while every PE's blocks move between host and device (a migrator thread
 * per PE calling uvas_migrate, and an aggressive policy), ending with every
 * value verified exactly. Run under mpirun (4 PEs in CI).
 *
 * Environment: UVAS_SOAK_SECONDS (15), UVAS_SOAK_THREADS (worker threads
 * per PE, 2), UVAS_SOAK_SEED; UVAS_POLICY defaults here to
 * hot-cold:tick_ms=5,fraction=0.5 (a tick every 5 ms promotes the hottest
 * blocks and demotes the rest) and UVAS_BLOCK_SIZE to 64K (more blocks,
 * more moves).
 *
 * Each worker thread (PE p, thread t) owns NS slots of SLOT bytes at every
 * PE and, until the time is up, picks at random:
 *   - a put of one of its slots at a random PE (itself too): the slot gets
 *     a sequence number and a pattern derived from (p, t, pe, slot, seq),
 *     blocking or _nbi, the source sometimes in the symmetric heap (so
 *     local device-resident sources are exercised too);
 *   - an atomic fetch_add of 1..7 on a random counter at a random PE (the
 *     fetched value is checked to be below the final total later);
 *   - a get (after quiet) of one of its slots it wrote, compared with what
 *     it last wrote there (puts to one slot are not fenced: this relies on
 *     uvas delivering one PE's puts to another in order, docs/transport.md).
 * At the end: quiet, barrier, migrator stopped, barrier; every thread
 * reads back every slot it owns at every PE; every PE checks each of its
 * counters equals the sum of all adds aimed at it (a sum reduction of
 * every PE's per-target tallies). PE 0 prints one line of figures.
 */
#include <shmem.h>

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "tests/check.h"
#include "transport/pe/job.h"
#include "transport/pe/pe.h"

#define MAXT 16
#define NS 32          /* slots per thread per PE */
#define SLOT 1536      /* bytes: not a divisor of a block, some slots straddle */
#define NC 256         /* counters per PE */
#define CSTRIDE 512    /* bytes between counters: they spread over blocks */

static int me, npes, nthreads;
static double seconds, t_end;
static unsigned char *slots;  /* npes * nthreads * NS * SLOT, symmetric */
static long *ctr;             /* NC counters, CSTRIDE apart, symmetric */
static unsigned char *symsrc; /* per-thread source buffers in the heap */
static size_t slots_len, ctr_len;
static atomic_int stop_mig;
static atomic_ulong errors;

struct worker {
    int t;
    pthread_t th;
    uint64_t rng;
    uint32_t seq[/* pe */ 64][NS]; /* last sequence written, 0: never */
    long adds[/* pe */ 64][NC];    /* what this thread added */
    long maxfetch[64][NC];         /* largest value fetched */
    uint8_t how[64][NS];           /* the last put's paths (a mask of enum uvas_pe_path) */
    uint8_t kind[64][NS];          /* bit 0: nbi, bit 1: source in the heap */
    uint64_t puts, gets, amos, put_bytes, get_bytes, bad;
};
static struct worker *W;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t slot_off(int p, int t, int k)
{
    return ((size_t)(p * nthreads + t) * NS + (size_t)k) * SLOT;
}

static void fill(unsigned char *d, int p, int t, int pe, int k, uint32_t seq)
{
    memcpy(d, &seq, 4);
    uint32_t x = seq * 2654435761u ^ (uint32_t)(p * 131 + t * 31 + pe * 7 + k);
    for (size_t i = 4; i < SLOT; i++) {
        x = x * 1103515245u + 12345u;
        d[i] = (unsigned char)(x >> 16);
    }
}

/* Index of the first wrong byte, or -1. */
static long check_slot(const unsigned char *d, int p, int t, int pe, int k, uint32_t seq)
{
    unsigned char want[SLOT];
    fill(want, p, t, pe, k, seq);
    for (size_t i = 0; i < SLOT; i++)
        if (d[i] != want[i])
            return (long)i;
    return -1;
}

static void bad(struct worker *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "PE %d thread %d: ", me, w->t);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    w->bad++;
    atomic_fetch_add(&errors, 1);
}

/* This thread's per-path operation counts (transport/pe/job.h). */
static void path_snap(uint64_t *o)
{
    struct uvas_path_ctr *c = uvas_path_mine ? uvas_path_mine : uvas_path_register();
    for (int i = 0; i < UVAS_PATH_COUNT; i++)
        o[i] = atomic_load_explicit(&c->p[i].ops, memory_order_relaxed);
}

static unsigned path_mask(const uint64_t *before)
{
    uint64_t after[UVAS_PATH_COUNT];
    path_snap(after);
    unsigned m = 0;
    for (int i = 0; i < UVAS_PATH_COUNT && i < 8; i++)
        if (after[i] != before[i])
            m |= 1u << i;
    return m;
}

static void paths_str(unsigned m, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < UVAS_PATH_COUNT && i < 8; i++)
        if (m & (1u << i))
            o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? "+" : "", uvas_pe_path_name(i));
    if (!o)
        snprintf(buf, n, "(none counted)");
}

static void *work(void *arg)
{
    struct worker *w = arg;
    unsigned char local[SLOT], got[SLOT];
    unsigned char *sym = symsrc + (size_t)w->t * SLOT; /* in the range: may migrate */
    int last_pe = -1, last_k = -1;
    for (unsigned long it = 0;; it++) {
        if ((it & 63) == 0 && now() > t_end)
            break;
        uint64_t r = tu_rand(&w->rng);
        unsigned what = (unsigned)(r % 16);
        int pe = (int)((r >> 8) % (uint64_t)npes);
        if (what < 9) { /* put */
            int k = (int)((r >> 20) % NS);
            uint32_t seq = ++w->seq[pe][k];
            bool from_sym = (r >> 40) & 1;
            unsigned char *src = from_sym ? sym : local;
            fill(src, me, w->t, pe, k, seq);
            unsigned char *dst = slots + slot_off(me, w->t, k);
            uint64_t pb[UVAS_PATH_COUNT];
            path_snap(pb);
            if ((r >> 41) & 1)
                shmem_putmem_nbi(dst, src, SLOT, pe);
            else
                shmem_putmem(dst, src, SLOT, pe);
            if (from_sym || ((r >> 41) & 1))
                shmem_quiet(); /* the source is reused next time */
            w->how[pe][k] = (uint8_t)path_mask(pb);
            w->kind[pe][k] = (uint8_t)(((r >> 41) & 1) | (from_sym << 1));
            w->puts++;
            w->put_bytes += SLOT;
            last_pe = pe, last_k = k;
        } else if (what < 14) { /* atomic */
            int c = (int)((r >> 20) % NC);
            long v = 1 + (long)((r >> 32) % 7);
            long old = shmem_long_atomic_fetch_add(
                (long *)((char *)ctr + (size_t)c * CSTRIDE), v, pe);
            if (old < 0)
                bad(w, "fetch_add at PE %d counter %d fetched %ld", pe, c, old);
            if (old > w->maxfetch[pe][c])
                w->maxfetch[pe][c] = old;
            w->adds[pe][c] += v;
            w->amos++;
        } else { /* get one of ours back */
            int k = last_k, gp = last_pe;
            if (k < 0 || (r >> 50) & 1) {
                gp = pe;
                k = (int)((r >> 20) % NS);
            }
            uint32_t seq = w->seq[gp][k];
            if (!seq)
                continue;
            shmem_quiet();
            uint64_t gb[UVAS_PATH_COUNT];
            path_snap(gb);
            shmem_getmem(got, slots + slot_off(me, w->t, k), SLOT, gp);
            long i = check_slot(got, me, w->t, gp, k, seq);
            if (i >= 0) {
                /* What went which way, and does it heal? */
                uint32_t first;
                memcpy(&first, got, 4);
                char pp[128], gpth[128];
                paths_str(w->how[gp][k], pp, sizeof pp);
                paths_str(path_mask(gb), gpth, sizeof gpth);
                int res = shmemx_residence(slots + slot_off(me, w->t, k), gp);
                uint32_t later[3];
                for (int j = 0; j < 3; j++) {
                    usleep(10000);
                    shmem_quiet();
                    shmem_getmem(got, slots + slot_off(me, w->t, k), SLOT, gp);
                    memcpy(&later[j], got, 4);
                }
                bad(w, "slot %d at PE %d (%p): byte %ld wrong: seq %u wanted, %u read; the put "
                    "went %s%s%s, the get %s; the block is now %s there; read again after "
                    "10/20/30 ms: seq %u %u %u", k, gp, (void *)(slots + slot_off(me, w->t, k)),
                    i, seq, first, pp,
                    w->kind[gp][k] & 1 ? " (nbi)" : "", w->kind[gp][k] & 2 ?
                    " (source in the heap)" : "", gpth, res >= 0 ? uvas_residence_name(res) :
                    "?", later[0], later[1], later[2]);
            }
            w->gets++;
            w->get_bytes += SLOT;
        }
    }
    shmem_quiet();
    return NULL;
}

static uint64_t mig_calls, mig_fail;
static int mig_last;

static void *migrator(void *arg)
{
    uint64_t rng = *(uint64_t *)arg;
    struct uvas_range_desc d = tu_range();
    size_t blk = d.block_size;
    while (!atomic_load(&stop_mig)) {
        uint64_t r = tu_rand(&rng);
        const unsigned char *base;
        size_t len;
        switch (r % 4) {
        case 0: base = (const unsigned char *)ctr, len = ctr_len; break;
        case 1: base = symsrc, len = (size_t)nthreads * SLOT; break;
        default: base = slots, len = slots_len; break;
        }
        size_t nb = (len + blk - 1) / blk;
        size_t b0 = (r >> 8) % nb, n = 1 + (r >> 24) % 3;
        if (b0 + n > nb)
            n = nb - b0;
        size_t off = b0 * blk;
        size_t l = n * blk;
        if (off + l > len)
            l = len - off;
        int loc = (r >> 40) & 1 ? UVAS_LOC_DEVICE : UVAS_LOC_HOST;
        int st = uvas_migrate(base + off, l, loc, (r >> 41) & 1 ? UVAS_MIGRATE_ASYNC : 0);
        if (st == UVAS_OK && ((r >> 41) & 1))
            st = uvas_migrate_wait();
        mig_calls++;
        if (st != UVAS_OK) {
            mig_fail++;
            mig_last = st;
        }
        if ((r >> 44) % 4 == 0)
            usleep(200);
    }
    return NULL;
}

static double env_num(const char *name, double dflt, double lo, double hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    double x = strtod(v, &end);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "%s='%s': a number in [%g, %g]\n", name, v, lo, hi);
        exit(2);
    }
    return x;
}

static long *red_src, *red_dst; /* figures summed over the PEs */

int main(void)
{
    setenv("UVAS_POLICY", "hot-cold:tick_ms=5,fraction=0.5", 0);
    setenv("UVAS_BLOCK_SIZE", "64K", 0);
    unsetenv("SHMEM_SYMMETRIC_HEAP_DEFAULT");
    seconds = env_num("UVAS_SOAK_SECONDS", 15, 1, 86400);
    nthreads = (int)env_num("UVAS_SOAK_THREADS", 2, 1, MAXT);
    uint64_t seed = (uint64_t)env_num("UVAS_SOAK_SEED", 12345, 0, 1e15);
    /* bounded: the run, startup and verification */
    tu_deadline((unsigned)(seconds * 1.5) + 240);
    int provided;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "shmem_init_thread");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "thread level %d", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 64, "at most 64 PEs");
    struct uvas_range_desc rd = tu_range();
    bool dev = shmemx_device_present() == 1;

    slots_len = (size_t)npes * nthreads * NS * SLOT;
    ctr_len = (size_t)NC * CSTRIDE;
    slots = shmem_calloc(slots_len, 1);
    ctr = shmem_calloc(ctr_len, 1);
    symsrc = shmem_malloc((size_t)nthreads * SLOT);
    long *tally = shmem_calloc((size_t)npes * NC, sizeof(long));  /* adds aimed at each PE */
    long *total = shmem_calloc((size_t)npes * NC, sizeof(long));
    red_src = shmem_calloc(64, sizeof(long));
    red_dst = shmem_calloc(64, sizeof(long));
    CHECK(slots && ctr && symsrc && tally && total && red_src && red_dst, "shmem_malloc");
    W = calloc((size_t)nthreads, sizeof *W);
    CHECK(W != NULL, "calloc");
    struct uvas_stats s0 = tu_stats();
    struct uvas_pe_stats p0;
    CHECK_OK(uvas_pe_stats_get(&p0));
    shmem_barrier_all();

    double t0 = now();
    t_end = t0 + seconds;
    pthread_t mth;
    uint64_t mseed = seed * 7919 + (uint64_t)me;
    if (dev)
        CHECK(pthread_create(&mth, NULL, migrator, &mseed) == 0, "pthread_create");
    for (int t = 0; t < nthreads; t++) {
        W[t].t = t;
        W[t].rng = seed ^ ((uint64_t)(me + 1) << 32) ^ (uint64_t)(t + 1) * 0x9e3779b97f4a7c15ull;
        CHECK(pthread_create(&W[t].th, NULL, work, &W[t]) == 0, "pthread_create");
    }
    for (int t = 0; t < nthreads; t++)
        pthread_join(W[t].th, NULL);
    double t_work = now() - t0;
    shmem_quiet();
    shmem_barrier_all();
    atomic_store(&stop_mig, 1);
    if (dev)
        pthread_join(mth, NULL);
    shmem_barrier_all();

    /* Every slot, read back by its writer (through whatever path now). */
    unsigned char got[SLOT];
    uint64_t checked = 0;
    for (int t = 0; t < nthreads; t++)
        for (int pe = 0; pe < npes; pe++)
            for (int k = 0; k < NS; k++) {
                uint32_t seq = W[t].seq[pe][k];
                shmem_getmem(got, slots + slot_off(me, t, k), SLOT, pe);
                checked++;
                if (!seq) {
                    if (tu_find_not(got, SLOT, 0) >= 0)
                        bad(&W[t], "slot %d at PE %d never written but not zero", k, pe);
                    continue;
                }
                long i = check_slot(got, me, t, pe, k, seq);
                if (i >= 0)
                    bad(&W[t], "final: slot %d at PE %d: byte %ld wrong (seq %u wanted, %u "
                        "read)", k, pe, i, seq, *(uint32_t *)got);
            }
    /* Every counter: the sum of every thread's adds aimed at it. */
    for (int t = 0; t < nthreads; t++)
        for (int pe = 0; pe < npes; pe++)
            for (int c = 0; c < NC; c++)
                tally[pe * NC + c] += W[t].adds[pe][c];
    shmem_barrier_all();
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, total, tally, (size_t)npes * NC);
    uint64_t ctr_bad = 0;
    for (int c = 0; c < NC; c++) {
        long v = *(long *)((char *)ctr + (size_t)c * CSTRIDE);
        long want = total[me * NC + c];
        if (v != want) {
            if (ctr_bad++ < 5)
                fprintf(stderr, "PE %d: counter %d is %ld, the adds sum to %ld\n", me, c, v,
                        want);
            atomic_fetch_add(&errors, 1);
        }
    }
    /* Fetched values lie below the final total. */
    for (int t = 0; t < nthreads; t++)
        for (int pe = 0; pe < npes; pe++)
            for (int c = 0; c < NC; c++)
                if (W[t].adds[pe][c] && W[t].maxfetch[pe][c] >= total[pe * NC + c]) {
                    bad(&W[t], "fetched %ld from counter %d at PE %d, whose total is %ld",
                        W[t].maxfetch[pe][c], c, pe, total[pe * NC + c]);
                }

    struct uvas_stats s1 = tu_stats();
    struct uvas_pe_stats p1;
    CHECK_OK(uvas_pe_stats_get(&p1));
    uint64_t puts = 0, gets = 0, amos = 0, pb = 0, gb = 0;
    for (int t = 0; t < nthreads; t++) {
        puts += W[t].puts, gets += W[t].gets, amos += W[t].amos;
        pb += W[t].put_bytes, gb += W[t].get_bytes;
    }
    /* Every figure summed over the PEs in one reduction. */
    enum { F_PUTS, F_GETS, F_AMOS, F_PB, F_GB, F_CHECKED, F_MIGDEV, F_MIGHOST, F_MIGBYTES,
           F_CALLS, F_MFAIL, F_WAITS, F_EVICT, F_AMSERVED, F_ERR, F_PATH, F_N = F_PATH +
           UVAS_PATH_COUNT };
    for (int i = 0; i < F_N; i++)
        red_src[i] = 0;
    red_src[F_PUTS] = (long)puts, red_src[F_GETS] = (long)gets, red_src[F_AMOS] = (long)amos;
    red_src[F_PB] = (long)pb, red_src[F_GB] = (long)gb, red_src[F_CHECKED] = (long)checked;
    red_src[F_MIGDEV] = (long)(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE]);
    red_src[F_MIGHOST] = (long)(s1.migrations[UVAS_RES_HOST] - s0.migrations[UVAS_RES_HOST]);
    red_src[F_MIGBYTES] = (long)(s1.bytes_migrated[UVAS_RES_DEVICE] +
                                 s1.bytes_migrated[UVAS_RES_HOST] -
                                 s0.bytes_migrated[UVAS_RES_DEVICE] -
                                 s0.bytes_migrated[UVAS_RES_HOST]);
    red_src[F_CALLS] = (long)mig_calls, red_src[F_MFAIL] = (long)mig_fail;
    red_src[F_WAITS] = (long)(p1.gate_waits - p0.gate_waits);
    red_src[F_EVICT] = (long)(s1.evictions - s0.evictions);
    red_src[F_AMSERVED] = (long)(p1.am_served - p0.am_served);
    red_src[F_ERR] = (long)atomic_load(&errors);
    for (int i = 0; i < UVAS_PATH_COUNT; i++)
        red_src[F_PATH + i] = (long)(p1.ops[i] - p0.ops[i]);
    shmem_barrier_all();
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, F_N);
    long g_puts = red_dst[F_PUTS], g_gets = red_dst[F_GETS], g_amos = red_dst[F_AMOS];
    long g_pb = red_dst[F_PB], g_gb = red_dst[F_GB], g_checked = red_dst[F_CHECKED];
    long g_mig_dev = red_dst[F_MIGDEV], g_mig_host = red_dst[F_MIGHOST];
    long g_mig_bytes = red_dst[F_MIGBYTES], g_calls = red_dst[F_CALLS];
    long g_mfail = red_dst[F_MFAIL], g_waits = red_dst[F_WAITS], g_evict = red_dst[F_EVICT];
    long g_am_served = red_dst[F_AMSERVED], g_err = red_dst[F_ERR];
    long *g_path = red_dst + F_PATH;
    if (mig_fail)
        fprintf(stderr, "PE %d: %lu of %lu uvas_migrate calls failed (last %s)\n", me,
                (unsigned long)mig_fail, (unsigned long)mig_calls, uvas_strerror(mig_last));
    if (me == 0) {
        char paths[512] = "";
        size_t o = 0;
        for (int i = 0; i < UVAS_PATH_COUNT; i++)
            if (g_path[i])
                o += (size_t)snprintf(paths + o, sizeof paths - o, "%s%s %ld", o ? ", " : "",
                                      uvas_pe_path_name(i), g_path[i]);
        printf("soak: %d PEs x %d threads, %.0f s, policy %s, blocks of %zu KiB, device %s: "
               "%ld puts (%.1f MiB), %ld gets (%.1f MiB), %ld atomics, %.0f ops/s; "
               "%ld migrations (%ld to device, %ld to host, %.1f MiB; %ld uvas_migrate calls, "
               "%ld failed; %ld evictions), %ld gate waits; paths: %s; AMs served %ld; "
               "verified %ld slots and %d counters; errors %ld\n",
               npes, nthreads, t_work, rd.policy, rd.block_size >> 10,
               dev ? rd.device_name : "none", g_puts, g_pb / 1048576.0, g_gets,
               g_gb / 1048576.0, g_amos, (double)(g_puts + g_gets + g_amos) / t_work,
               g_mig_dev + g_mig_host, g_mig_dev, g_mig_host, g_mig_bytes / 1048576.0,
               g_calls, g_mfail, g_evict, g_waits, paths, g_am_served, g_checked, npes * NC,
               g_err + g_mfail);
        fflush(stdout);
    }
    shmem_barrier_all();
    shmem_finalize();
    if (g_err || g_mfail)
        return 1;
    if (dev && g_mig_dev + g_mig_host == 0) {
        if (me == 0)
            fprintf(stderr, "soak: no block moved: the test proved nothing about migrations\n");
        return 1;
    }
    return 0;
}
