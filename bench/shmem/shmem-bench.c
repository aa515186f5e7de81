/*
 * shmem-bench: point-to-point OpenSHMEM micro-benchmark.
 *
 * Written against standard OpenSHMEM 1.4 only (nothing implementation
 * specific), so the same source builds with any OpenSHMEM: uvas, Open MPI's
 * OSHMEM, Sandia OpenSHMEM, ...  scripts/shmem-bench.sh builds it twice and
 * compares.
 *
 * Run with 2 PEs (more are allowed: PEs >= 2 only take part in barriers).
 * PE 0 initiates every operation, PE 1 is the target and stays passive
 * (it sits in shmem_barrier_all while PE 0 measures).
 *
 * usage: shmem-bench [-q] [-m MAXBYTES]
 *   -q           quick mode (fewer and shorter batches; for CI)
 *   -m MAXBYTES  largest message size (default 4 MiB; K/M/G suffixes allowed)
 *
 * Output (stdout, PE 0 only), one measurement a line, '#' lines are comments:
 *   put_lat SIZE USEC     shmem_putmem(dst, src, n, 1); shmem_quiet();
 *   get_lat SIZE USEC     shmem_getmem(dst, src, n, 1);
 *   put_bw  SIZE MBPS     window of shmem_putmem_nbi, then one shmem_quiet
 *                         (MB = 10^6 bytes)
 *   amo fetch_add MOPS    shmem_long_atomic_fetch_add(.., 1)
 *   amo add MOPS          shmem_long_atomic_add(.., 1) x N, then shmem_quiet
 *   amo compare_swap MOPS shmem_long_atomic_compare_swap(.., i, i+1, 1)
 *   ptr_bw  SIZE MBPS     the same window as put_bw as plain memcpy into
 *                         shmem_ptr(dst, 1), then one full fence: the
 *                         machine's own rate through the same mapping, a
 *                         reference that does not move with another
 *                         library (only where shmem_ptr gives an address)
 *   ptr_amo fetch_add MOPS __atomic_fetch_add through shmem_ptr: the
 *                         CPU's own atomic on PE 1's long, the same way
 *   done                  printed (and flushed) just before shmem_finalize
 *
 * Statistic: every figure is the MEDIAN over several batches of the batch's
 * MEAN per operation (5 batches, 3 with -q).  The iteration count of a batch
 * is calibrated from the warm-up so that one batch takes about 20 ms (5 ms
 * with -q), between 1 and 200000 operations, which keeps a full run to a few
 * seconds even on a slow 2-core VM.  Times: clock_gettime(CLOCK_MONOTONIC).
 *
 * Message sizes: 8, 64, 512, 4K, 32K, 256K, 2M, 4M, then doubling, up to
 * MAXBYTES.  All buffers are symmetric (shmem_malloc) and are touched on every
 * PE before timing.  Each put size is checked afterwards with shmem_getmem,
 * the atomics' final values with shmem_long_g; a mismatch is reported on
 * stderr and makes the exit status 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCHES 5
#define MAX_ITERS 200000L
#define BW_WINDOW 64

static int quick;
static int nbatches = MAX_BATCHES;
static double batch_target_s = 20e-3;
static int errors;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Iterations for one batch, from the time one warm-up operation took. */
static long calibrate(double per_op_s)
{
    if (per_op_s <= 0)
        return MAX_ITERS;
    double it = batch_target_s / per_op_s;
    if (it < 1)
        return 1;
    if (it > (double)MAX_ITERS)
        return MAX_ITERS;
    return (long)it;
}

/* One timed operation kind: op(arg, i) is called for i = 0 .. n-1. */
typedef void (*op_fn)(void *arg, long i);

struct xfer {
    char *dst, *src;
    size_t n;
    int window;
};

static void op_put(void *arg, long i)
{
    struct xfer *x = arg;
    (void)i;
    shmem_putmem(x->dst, x->src, x->n, 1);
    shmem_quiet();
}

static void op_get(void *arg, long i)
{
    struct xfer *x = arg;
    (void)i;
    shmem_getmem(x->dst, x->src, x->n, 1);
}

/* One "operation" here is a whole window of non-blocking puts + one quiet. */
static void op_put_bw(void *arg, long i)
{
    struct xfer *x = arg;
    (void)i;
    for (int w = 0; w < x->window; w++)
        shmem_putmem_nbi(x->dst, x->src, x->n, 1);
    shmem_quiet();
}

/* The reference for op_put_bw: the window as stores into PE 1's memory
 * through the address shmem_ptr gives, made visible by one fence. */
static void op_ptr_bw(void *arg, long i)
{
    struct xfer *x = arg;
    (void)i;
    for (int w = 0; w < x->window; w++)
        memcpy(x->dst, x->src, x->n);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static long *amo_target;
static long *amo_target_ptr; /* shmem_ptr(amo_target, 1) */
static long amo_sink;

static void op_fadd(void *arg, long i)
{
    (void)arg;
    (void)i;
    amo_sink += shmem_long_atomic_fetch_add(amo_target, 1, 1);
}

static void op_ptr_fadd(void *arg, long i)
{
    (void)arg;
    (void)i;
    amo_sink += __atomic_fetch_add(amo_target_ptr, 1, __ATOMIC_SEQ_CST);
}

static void op_add(void *arg, long i)
{
    (void)arg;
    (void)i;
    shmem_long_atomic_add(amo_target, 1, 1);
}

/* Counts the number of compare_swap operations issued so far, so that every
 * swap succeeds (cond == current value) whatever the batch sizes were. */
static long cswap_next;

static void op_cswap(void *arg, long i)
{
    (void)arg;
    (void)i;
    long old = shmem_long_atomic_compare_swap(amo_target, cswap_next, cswap_next + 1, 1);
    if (old != cswap_next)
        errors++;
    cswap_next++;
}

/*
 * Run on PE 0 only: warm-up, calibration, then nbatches timed batches.
 * Returns the median of the batches' mean seconds per op; *total_ops gets the
 * number of ops issued (warm-up included).  quiet_after: one shmem_quiet
 * closes each batch inside the timed region (for non-fetching atomics).
 */
static double measure(op_fn op, void *arg, int warmup, int quiet_after, long *total_ops)
{
    double per[MAX_BATCHES];
    long ops = 0;

    double t0 = now();
    for (int i = 0; i < warmup; i++)
        op(arg, ops++);
    if (quiet_after)
        shmem_quiet();
    double t1 = now();
    long iters = calibrate(warmup > 0 ? (t1 - t0) / warmup : 0);

    for (int b = 0; b < nbatches; b++) {
        double s = now();
        for (long i = 0; i < iters; i++)
            op(arg, ops++);
        if (quiet_after)
            shmem_quiet();
        per[b] = (now() - s) / (double)iters;
    }
    if (total_ops)
        *total_ops = ops;
    return median(per, nbatches);
}

/* Memory for the references: memory shmem_ptr reaches. An implementation
 * may hand out addresses only for memory that never moves (uvas: its host
 * heap, a hint of its own); elsewhere any symmetric memory. */
static void *ref_malloc(size_t n)
{
#ifdef SHMEM_MALLOC_HOST_HEAP
    return shmem_malloc_with_hints(n, SHMEM_MALLOC_HOST_HEAP);
#else
    return shmem_malloc(n);
#endif
}

/* Puts in a bandwidth window: BW_WINDOW, fewer for big messages so one
 * window stays within 16 MiB. */
static int window_for(size_t n)
{
    int window = BW_WINDOW;
    while (window > 1 && (size_t)window * n > (16u << 20))
        window /= 2;
    return window;
}

static int warmup_for(size_t n)
{
    if (quick)
        return n >= (1u << 20) ? 1 : 4;
    return n >= (1u << 20) ? 2 : n >= (1u << 15) ? 8 : 32;
}

static size_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return 0;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'B')
        end++;
    if (*end == 'B')
        end++;
    if (*end)
        return 0;
    return (size_t)v;
}

static int sizes_upto(size_t max, size_t *out, int cap)
{
    static const size_t base[] = {8, 64, 512, 4096, 32768, 262144, 2097152, 4194304};
    int k = 0;
    for (size_t i = 0; i < sizeof base / sizeof *base && k < cap; i++)
        if (base[i] <= max)
            out[k++] = base[i];
    for (size_t s = 8u << 20; s <= max && k < cap; s *= 2)
        out[k++] = s;
    return k;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-q] [-m MAXBYTES]\n", argv0);
}

int main(int argc, char **argv)
{
    size_t maxbytes = 4u << 20;
    int opt, bad = 0;

    while ((opt = getopt(argc, argv, "qm:h")) != -1) {
        switch (opt) {
        case 'q':
            quick = 1;
            break;
        case 'm':
            maxbytes = parse_size(optarg);
            if (maxbytes < 8)
                bad = 1;
            break;
        default:
            bad = 1;
            break;
        }
    }

    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();

    if (bad || optind != argc) {
        if (me == 0)
            usage(argv[0]);
        shmem_finalize();
        return 2;
    }
    if (npes < 2) {
        if (me == 0)
            fprintf(stderr, "shmem-bench: needs at least 2 PEs (got %d)\n", npes);
        shmem_finalize();
        return 2;
    }
    if (quick) {
        nbatches = 3;
        batch_target_s = 5e-3;
    }

    size_t sizes[40];
    int nsizes = sizes_upto(maxbytes, sizes, 40);
    size_t bufsz = sizes[nsizes - 1];

    /* Same sequence of shmem_malloc calls on every PE (collective). */
    char *src = shmem_malloc(bufsz);
    char *dst = shmem_malloc(bufsz);
    char *chk = shmem_malloc(bufsz);
    amo_target = shmem_malloc(sizeof(long));
    char *ref_dst = ref_malloc(bufsz);
    long *ref_amo = ref_malloc(sizeof(long));
    if (!src || !dst || !chk || !amo_target || !ref_dst || !ref_amo) {
        fprintf(stderr, "shmem-bench: PE %d: shmem_malloc of 4 x %zu bytes failed\n", me, bufsz);
        shmem_global_exit(1);
        return 1;
    }
    /* Touch everything once on every PE so no first-touch cost is timed. */
    for (size_t i = 0; i < bufsz; i++)
        src[i] = (char)(i * 7 + 1 + (size_t)me);
    memset(dst, 0, bufsz);
    memset(chk, 0, bufsz);
    memset(ref_dst, 0, bufsz);
    *amo_target = 0;
    *ref_amo = 0;
    shmem_barrier_all();

    if (me == 0) {
        char host[256] = "?";
        gethostname(host, sizeof host - 1);
        printf("# shmem-bench: %d PEs, PE 0 -> PE 1, host %s, max %zu bytes%s\n", npes, host,
               maxbytes, quick ? ", quick" : "");
        printf("# OpenSHMEM spec %d.%d; figures: median over %d batches of per-op mean\n",
               SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, nbatches);
        printf("# units: put_lat/get_lat usec, put_bw MB/s (1e6 B/s), amo Mops/s\n");
        fflush(stdout);
    }

    /* put latency */
    for (int s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        if (me == 0) {
            struct xfer x = {dst, src, n, 1};
            double t = measure(op_put, &x, warmup_for(n), 0, NULL);
            printf("put_lat %zu %.4f\n", n, t * 1e6);
            fflush(stdout);
            /* Verify: read PE 1's dst back and compare with what was put. */
            shmem_getmem(chk, dst, n, 1);
            if (memcmp(chk, src, n) != 0) {
                fprintf(stderr, "shmem-bench: put of %zu bytes: data mismatch at PE 1\n", n);
                errors++;
            }
        }
        shmem_barrier_all();
    }

    /* get latency: PE 0 reads PE 1's src into its own dst */
    for (int s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        if (me == 0) {
            struct xfer x = {dst, src, n, 1};
            double t = measure(op_get, &x, warmup_for(n), 0, NULL);
            printf("get_lat %zu %.4f\n", n, t * 1e6);
            fflush(stdout);
            /* PE 1's src pattern differs from ours by the +me term. */
            for (size_t i = 0; i < n; i++)
                if (dst[i] != (char)(i * 7 + 1 + 1)) {
                    fprintf(stderr, "shmem-bench: get of %zu bytes: data mismatch at %zu\n", n, i);
                    errors++;
                    break;
                }
        }
        shmem_barrier_all();
    }

    /* put bandwidth: window of nbi puts then one quiet */
    for (int s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        if (me == 0) {
            int window = window_for(n);
            struct xfer x = {dst, src, n, window};
            double t = measure(op_put_bw, &x, quick ? 1 : 2, 0, NULL);
            printf("put_bw %zu %.1f\n", n, (double)n * window / t / 1e6);
            fflush(stdout);
        }
        shmem_barrier_all();
    }

    /* The same windows as plain stores, where PE 1's memory is mapped here
     * (shmem_ptr; NULL where it is not, as over a network). */
    char *dst_ptr = me == 0 ? shmem_ptr(ref_dst, 1) : NULL;
    for (int s = 0; s < nsizes && dst_ptr; s++) {
        size_t n = sizes[s];
        int window = window_for(n);
        struct xfer x = {dst_ptr, src, n, window};
        double t = measure(op_ptr_bw, &x, quick ? 1 : 2, 0, NULL);
        printf("ptr_bw %zu %.1f\n", n, (double)n * window / t / 1e6);
        fflush(stdout);
    }
    shmem_barrier_all();

    /* atomics on one long at PE 1 */
    if (me == 0) {
        int wu = quick ? 16 : 64;
        long nfadd = 0, nadd = 0;
        double t;

        shmem_long_p(amo_target, 0, 1);
        shmem_quiet();
        t = measure(op_fadd, NULL, wu, 0, &nfadd);
        printf("amo fetch_add %.3f\n", 1e-6 / t);
        fflush(stdout);

        t = measure(op_add, NULL, wu, 1, &nadd);
        printf("amo add %.3f\n", 1e-6 / t);
        fflush(stdout);

        long v = shmem_long_g(amo_target, 1);
        if (v != nfadd + nadd) {
            fprintf(stderr, "shmem-bench: fetch_add/add: target is %ld, expected %ld\n", v,
                    nfadd + nadd);
            errors++;
        }

        shmem_long_p(amo_target, 0, 1);
        shmem_quiet();
        cswap_next = 0;
        t = measure(op_cswap, NULL, wu, 0, NULL);
        printf("amo compare_swap %.3f\n", 1e-6 / t);
        fflush(stdout);
        v = shmem_long_g(amo_target, 1);
        if (v != cswap_next) {
            fprintf(stderr, "shmem-bench: compare_swap: target is %ld, expected %ld\n", v,
                    cswap_next);
            errors++;
        }

        amo_target_ptr = shmem_ptr(ref_amo, 1);
        if (amo_target_ptr) {
            long nptr = 0;
            t = measure(op_ptr_fadd, NULL, wu, 0, &nptr);
            printf("ptr_amo fetch_add %.3f\n", 1e-6 / t);
            fflush(stdout);
            v = shmem_long_g(ref_amo, 1);
            if (v != nptr) {
                fprintf(stderr, "shmem-bench: fetch_add through shmem_ptr: target is %ld, "
                        "expected %ld\n", v, nptr);
                errors++;
            }
        }
    }
    shmem_barrier_all();

    shmem_free(ref_amo);
    shmem_free(ref_dst);
    shmem_free(amo_target);
    shmem_free(chk);
    shmem_free(dst);
    shmem_free(src);

    if (me == 0) {
        if (errors)
            printf("# %d verification errors\n", errors);
        /* Everything is measured and printed: a crash inside shmem_finalize
         * (Open MPI 4.1.4 OSHMEM, open-mpi/ompi#11604) can't lose results. */
        printf("done\n");
        fflush(stdout);
    }
    fflush(stderr);
    shmem_finalize();
    return errors ? 1 : 0;
}
