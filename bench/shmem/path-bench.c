/*
 * path-bench: latency and bandwidth of every RMA path of uvas's dispatch,
 * one row per path, each row checked to have taken the path it names.
 *
 * Run under mpirun with 2 PEs (more are allowed: PEs >= 2 only take part in
 * the collective set-up and barriers). PE 0 initiates every operation to
 * PE 1, which stays passive in shmem_barrier_all while PE 0 measures.
 *
 * usage: path-bench [-q] [-n SCALE] [-t LABEL]
 *   -q        quick mode (shorter and fewer batches; for CI)
 *   -n SCALE  multiply batch lengths and bandwidth iterations (default 1)
 *   -t LABEL  a label printed in the header (e.g. "ucx" for a run with
 *             UVAS_TRANSPORT=ucx); nothing else changes
 *
 * Rows (local buffers at PE 0, target at PE 1; a row's get reads the
 * target into a local buffer of the same tier as its source, so data
 * flows the other way and the get takes the mirrored path):
 *
 *   row        local (src, get dst)  target at PE 1            put path           get path
 *   CPU->CPU   host heap             host heap                 cpu-cpu            cpu-cpu
 *   CPU->GPU   host heap             device heap               cpu-gpu/device-map gpu-cpu
 *   GPU->CPU   device heap           host heap                 gpu-cpu            cpu-gpu/device-map
 *   GPU->GPU   device heap           device heap               gpu-gpu            gpu-gpu
 *   AM         host heap             read-mostly, on device    active-message     active-message
 *
 * The AM row's target is advised read-mostly and migrated to the device:
 * a duplicated block is not written directly by peers (its gate is not
 * DIRECT), so the dispatch sends the access to the owner. Its gets run
 * before its puts: a write at the owner collapses the duplicate to the
 * host, after which puts take cpu-cpu (reported as such). With
 * UVAS_TRANSPORT=ucx every remote op of every row is an active message, or
 * ucp RMA where UVAS_UCX_RMA_MIN opts in (host-resident target, at least
 * that many bytes); either counts as the row's path there.
 *
 * Before each row every PE migrates the row's buffers to their tiers
 * (uvas_migrate), and PE 0 checks with shmemx_residence that source,
 * get destination and target are there (error and exit 1 otherwise).
 * Around each measurement PE 0 reads uvas_pe_stats_get and records the
 * path that carried most of its ops; a measurement whose dominant path is
 * not the row's gets a '!' after its figure and a NOTE under the table.
 * After the row the target is read back and compared with the source
 * (error, exit status 1, on a mismatch), and residences are checked again
 * (a buffer the library moved during the row is a NOTE).
 *
 * Columns: put8 / put4K us: shmem_putmem + shmem_quiet, 8 B and 4 KiB;
 * get8 us: shmem_getmem of 8 B; put/get 2M GB/s: 2 MiB put + quiet / get
 * (GB = 10^9 bytes). Latencies are the median over batches of the batch's
 * mean (5 batches of ~15 ms; -q: 3 of ~3 ms); bandwidths the median of
 * single timed transfers (5; -q: 3). Times: clock_gettime(CLOCK_MONOTONIC).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>
#include <uvas.h>

#include "bench-stats.h"
#include "transport/pe/pe.h"

#define BUF ((size_t)2 << 20) /* one 2 MiB transfer; also the largest block */
#define MAX_BATCHES 5
#define MAX_ITERS 100000L

static int nbatches = MAX_BATCHES;
static double batch_target_s = 15e-3;
static int bw_iters = 5;
static bool ucx_only;
static int errors;

/* ---- the operations ---------------------------------------------------------- */

enum { OP_PUT, OP_GET };

static void op(int kind, char *local, char *remote, size_t n)
{
    if (kind == OP_PUT) {
        shmem_putmem(remote, local, n, 1);
        shmem_quiet();
    } else {
        shmem_getmem(local, remote, n, 1);
    }
}

/* One measurement: its figure and the paths its ops took (warm-up too). */
struct cell {
    double value;      /* us (latency) or GB/s (bandwidth); < 0: not run */
    uint64_t ops[UVAS_PATH_COUNT], bytes[UVAS_PATH_COUNT];
    int dominant;      /* path with most ops, -1 if none counted */
    bool off_path;     /* dominant is not one the row expects */
};

static void stats(struct uvas_pe_stats *st)
{
    if (uvas_pe_stats_get(st) != UVAS_OK) {
        fprintf(stderr, "path-bench: uvas_pe_stats_get: %s\n", uvas_last_error());
        shmem_global_exit(1);
    }
}

static void cell_paths(struct cell *c, const struct uvas_pe_stats *a,
                       const struct uvas_pe_stats *b, unsigned expect)
{
    c->dominant = -1;
    for (int p = 0; p < UVAS_PATH_COUNT; p++) {
        c->ops[p] = b->ops[p] - a->ops[p];
        c->bytes[p] = b->bytes[p] - a->bytes[p];
        if (c->ops[p] && (c->dominant < 0 || c->ops[p] > c->ops[c->dominant]))
            c->dominant = p;
    }
    c->off_path = c->dominant < 0 || !(expect & (1u << c->dominant));
}

/* Latency in us: warm up, size a batch
 * to batch_target_s, then the median of nbatches batch means. */
static void latency(struct cell *c, int kind, char *local, char *remote, size_t n,
                    unsigned expect)
{
    struct uvas_pe_stats a, b;
    stats(&a);
    /* Rounds of 1, 2, 4, ... ops until one takes 1 ms; the last round sets
     * the pace (at least two rounds: a first op that faults or migrates
     * would otherwise size every batch). */
    double per_op = 0;
    for (long k = 1; k <= 8192; k *= 2) {
        double t0 = bench_now_s();
        for (long i = 0; i < k; i++)
            op(kind, local, remote, n);
        double dt = bench_now_s() - t0;
        per_op = dt / (double)k;
        if (k > 1 && dt > 1e-3)
            break;
    }
    double it = per_op > 0 ? batch_target_s / per_op : (double)MAX_ITERS;
    long iters = it < 1 ? 1 : it > (double)MAX_ITERS ? MAX_ITERS : (long)it;
    double per[MAX_BATCHES];
    for (int bt = 0; bt < nbatches; bt++) {
        double t0 = bench_now_s();
        for (long i = 0; i < iters; i++)
            op(kind, local, remote, n);
        per[bt] = (bench_now_s() - t0) / (double)iters;
    }
    stats(&b);
    c->value = bench_median_of(per, nbatches) * 1e6;
    cell_paths(c, &a, &b, expect);
}

/* Bandwidth in GB/s of single n-byte transfers: one warm-up, then the
 * median of bw_iters timed ones. */
static void bandwidth(struct cell *c, int kind, char *local, char *remote, size_t n,
                      unsigned expect)
{
    struct uvas_pe_stats a, b;
    double t[64];
    int iters = bw_iters < 64 ? bw_iters : 64;
    stats(&a);
    op(kind, local, remote, n);
    for (int i = 0; i < iters; i++) {
        double t0 = bench_now_s();
        op(kind, local, remote, n);
        t[i] = bench_now_s() - t0;
    }
    stats(&b);
    double m = bench_median_of(t, iters);
    c->value = m > 0 ? (double)n / m / 1e9 : 0;
    cell_paths(c, &a, &b, expect);
}

/* ---- rows ---------------------------------------------------------------------- */

#define P(x) (1u << (x))

enum { C_PUT8, C_PUT4K, C_GET8, C_PUT2M, C_GET2M, NCELLS };
static const char *const cell_name[NCELLS] = {"put8", "put4K", "get8", "put 2M", "get 2M"};

struct row {
    const char *name;
    char *src, *dst;      /* at PE 0: put source, get destination */
    char *tgt;            /* at PE 1 */
    int local_res, tgt_res;
    unsigned put_paths, get_paths; /* expected, windows transport */
    bool gets_first;
    bool run;
    const char *skip;     /* why not run */
    struct cell cell[NCELLS];
    char moved[512];      /* residence changes seen during the row */
    unsigned moved_mask;  /* buffers already reported (src, dst, tgt) */
};

static bool is_put(int c)
{
    return c == C_PUT8 || c == C_PUT4K || c == C_PUT2M;
}

/* Every PE: put the buffers where the row says. */
static void place(struct row *r)
{
    char *bufs[3] = {r->src, r->dst, r->tgt};
    int res[3] = {r->local_res, r->local_res, r->tgt_res};
    for (int i = 0; i < 3; i++) {
        int rc = uvas_migrate(bufs[i], BUF, res[i], 0);
        if (rc != UVAS_OK) {
            fprintf(stderr, "path-bench: PE %d: %s: uvas_migrate to %s: %s\n", shmem_my_pe(),
                    r->name, uvas_residence_name(res[i]), uvas_last_error());
            shmem_global_exit(1);
        }
    }
}

/* Residence of both ends of buf at pe == want? Prints what it found. */
static bool resident(const char *row, const char *what, const char *buf, int pe, int want,
                     char *msg, size_t msz)
{
    int a = shmemx_residence(buf, pe), b = shmemx_residence(buf + BUF - 1, pe);
    if (a == want && b == want)
        return true;
    size_t l = strlen(msg);
    snprintf(msg + l, msz - l, "%s%s %s at PE %d is %s/%s (expected %s)", l ? "; " : "", row,
             what, pe, a >= 0 ? uvas_residence_name(a) : "?",
             b >= 0 ? uvas_residence_name(b) : "?", uvas_residence_name(want));
    return false;
}

static bool check_row(struct row *r, char *msg, size_t msz)
{
    bool ok = resident(r->name, "source", r->src, 0, r->local_res, msg, msz);
    ok &= resident(r->name, "get destination", r->dst, 0, r->local_res, msg, msz);
    ok &= resident(r->name, "target", r->tgt, 1, r->tgt_res, msg, msz);
    return ok;
}

/* After a measurement: note each buffer that it left elsewhere. */
static void after_cell(struct row *r, int c)
{
    char *bufs[3] = {r->src, r->dst, r->tgt};
    const char *what[3] = {"source", "get destination", "target"};
    int pe[3] = {0, 0, 1}, want[3] = {r->local_res, r->local_res, r->tgt_res};
    for (int i = 0; i < 3; i++) {
        if (r->moved_mask & (1u << i)) /* the target, already reported */
            continue;
        char msg[200] = "";
        if (resident(r->name, what[i], bufs[i], pe[i], want[i], msg, sizeof msg))
            continue;
        if (pe[i] == 1)
            r->moved_mask |= 1u << i; /* stays moved: the local ones are placed again */
        size_t l = strlen(r->moved);
        snprintf(r->moved + l, sizeof r->moved - l, "%safter %s: %s", l ? "; " : "",
                 cell_name[c], msg + strlen(r->name) + 1);
    }
}

static void measure_row(struct row *r)
{
    unsigned pe_paths = ucx_only ? P(UVAS_PATH_AM) | P(UVAS_PATH_UCX_RMA) : r->put_paths;
    unsigned ge_paths = ucx_only ? P(UVAS_PATH_AM) | P(UVAS_PATH_UCX_RMA) : r->get_paths;
    static const int put_cells[] = {C_PUT8, C_PUT4K, C_PUT2M}, get_cells[] = {C_GET8, C_GET2M};
    for (int pass = 0; pass < 2; pass++) {
        bool gets = (pass == 0) == r->gets_first;
        const int *cells = gets ? get_cells : put_cells;
        int n = gets ? 2 : 3;
        for (int k = 0; k < n; k++) {
            int c = cells[k];
            /* Our own buffers go back where the row says before each
             * measurement, so one that moved them spoils only itself. */
            if (uvas_migrate(r->src, BUF, r->local_res, 0) != UVAS_OK ||
                uvas_migrate(r->dst, BUF, r->local_res, 0) != UVAS_OK) {
                fprintf(stderr, "path-bench: %s: uvas_migrate: %s\n", r->name,
                        uvas_last_error());
                shmem_global_exit(1);
            }
            int kind = gets ? OP_GET : OP_PUT;
            char *local = gets ? r->dst : r->src;
            unsigned expect = gets ? ge_paths : pe_paths;
            if (c == C_PUT2M || c == C_GET2M)
                bandwidth(&r->cell[c], kind, local, r->tgt, BUF, expect);
            else
                latency(&r->cell[c], kind, local, r->tgt, c == C_PUT4K ? 4096 : 8, expect);
            after_cell(r, c);
        }
    }
}

/* The last put was 2 MiB of src: the target must hold it. Read both
 * through shmem_getmem into plain memory (no CPU touch of device blocks). */
static void verify_row(struct row *r, unsigned char *a, unsigned char *b)
{
    shmem_getmem(a, r->tgt, BUF, 1);
    shmem_getmem(b, r->src, BUF, 0);
    if (memcmp(a, b, BUF) != 0) {
        size_t i = 0;
        while (a[i] == b[i])
            i++;
        fprintf(stderr, "path-bench: ERROR: %s: after the 2 MiB put, target byte %zu is "
                "%#x, source has %#x\n", r->name, i, a[i], b[i]);
        errors++;
    }
}

/* ---- output --------------------------------------------------------------------- */

/* "a+b": the dominant paths of one direction's measurements, in order,
 * each named once (so the 2 MiB transfers show beside the small ones). */
static void paths_of(const struct row *r, bool put, char *out, size_t osz)
{
    static const int order[NCELLS] = {C_PUT8, C_PUT4K, C_PUT2M, C_GET8, C_GET2M};
    bool used[UVAS_PATH_COUNT] = {0};
    out[0] = 0;
    for (int k = 0; k < NCELLS; k++) {
        const struct cell *x = &r->cell[order[k]];
        if (is_put(order[k]) != put || x->value < 0 || x->dominant < 0 || used[x->dominant])
            continue;
        used[x->dominant] = true;
        size_t l = strlen(out);
        snprintf(out + l, osz - l, "%s%s", l ? "+" : "", uvas_pe_path_name(x->dominant));
    }
    if (!out[0])
        snprintf(out, osz, "none");
}

static void print_table(struct row *rows, int nrows)
{
    printf("%-9s| %8s | %8s | %8s | %11s | %11s | %s\n", "path", "put8 us", "put4K us",
           "get8 us", "put 2M GB/s", "get 2M GB/s", "path taken (put / get)");
    printf("---------+----------+----------+----------+-------------+-------------+"
           "-----------------------\n");
    for (int i = 0; i < nrows; i++) {
        struct row *r = &rows[i];
        if (!r->run) {
            printf("%-9s| %8s | %8s | %8s | %11s | %11s | skipped: %s\n", r->name, "-", "-",
                   "-", "-", "-", r->skip);
            continue;
        }
        char f[NCELLS][32];
        for (int c = 0; c < NCELLS; c++) {
            const struct cell *x = &r->cell[c];
            snprintf(f[c], sizeof f[c], "%.2f%s", x->value, x->off_path ? "!" : "");
        }
        char pp[128], gp[128];
        paths_of(r, true, pp, sizeof pp);
        paths_of(r, false, gp, sizeof gp);
        printf("%-9s| %8s | %8s | %8s | %11s | %11s | %s / %s\n", r->name, f[C_PUT8],
               f[C_PUT4K], f[C_GET8], f[C_PUT2M], f[C_GET2M], pp, gp);
    }
    /* For the performance guard (scripts/perf-check.py): figures of cells
     * that took their row's path. */
    static const char *metric_cell[NCELLS] = {"put8_us", "put4k_us", "get8_us", "put2m_gbs",
                                              "get2m_gbs"};
    for (int i = 0; i < nrows; i++) {
        char row[32];
        size_t k = 0;
        for (const char *c = rows[i].name; *c && k + 1 < sizeof row; c++)
            if (*c == '-')
                row[k++] = '_';
            else if (*c != '>')
                row[k++] = (char)tolower((unsigned char)*c);
        row[k] = 0;
        for (int c = 0; rows[i].run && c < NCELLS; c++)
            if (!rows[i].cell[c].off_path && rows[i].cell[c].value >= 0)
                printf("metric path.%s.%s %.6g\n", row, metric_cell[c], rows[i].cell[c].value);
    }
}

static void path_list(unsigned mask, char *out, size_t osz)
{
    out[0] = 0;
    for (int p = 0; p < UVAS_PATH_COUNT; p++)
        if (mask & P(p)) {
            size_t l = strlen(out);
            snprintf(out + l, osz - l, "%s%s", l ? " or " : "", uvas_pe_path_name(p));
        }
}

static int print_notes(struct row *rows, int nrows)
{
    int notes = 0;
    for (int i = 0; i < nrows; i++) {
        struct row *r = &rows[i];
        if (!r->run)
            continue;
        for (int c = 0; c < NCELLS; c++) {
            struct cell *x = &r->cell[c];
            if (!x->off_path)
                continue;
            unsigned mask = ucx_only ? P(UVAS_PATH_AM) | P(UVAS_PATH_UCX_RMA)
                            : is_put(c) ? r->put_paths : r->get_paths;
            char want[128], got[256] = "";
            path_list(mask, want, sizeof want);
            for (int p = 0; p < UVAS_PATH_COUNT; p++)
                if (x->ops[p]) {
                    size_t l = strlen(got);
                    snprintf(got + l, sizeof got - l, "%s%s %llu ops/%llu B", l ? ", " : "",
                             uvas_pe_path_name(p), (unsigned long long)x->ops[p],
                             (unsigned long long)x->bytes[p]);
                }
            printf("!!! NOTE: %s %s did NOT take its path: expected %s, took %s (%s)\n",
                   r->name, cell_name[c], want,
                   x->dominant >= 0 ? uvas_pe_path_name(x->dominant) : "nothing",
                   got[0] ? got : "no ops counted");
            notes++;
        }
        if (r->moved[0]) {
            printf("!!! NOTE: %s: residence changed during the row: %s\n", r->name, r->moved);
            notes++;
        }
        if (r->gets_first && (r->moved_mask & 4u))
            printf("    (%s: a put's write at the owner collapses the read-mostly duplicate "
                   "to the host, as UVAS_ADVISE_READ_MOSTLY documents; %s)\n", r->name,
                   ucx_only ? "over UCX the puts stay active messages"
                            : "later puts go cpu-cpu. Run with UVAS_TRANSPORT=ucx for "
                              "active-message puts.");
    }
    return notes;
}

/* ---- main ----------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: path-bench [-q] [-n SCALE] [-t LABEL]\n"
               "  -q        quick mode (shorter, fewer batches)\n"
               "  -n SCALE  multiply batch lengths and bandwidth iterations (default 1)\n"
               "  -t LABEL  label printed in the header (e.g. ucx)\n"
               "run under mpirun with 2 PEs; PE 0 initiates to PE 1\n");
}

/* Fill a symmetric buffer on this PE without touching it from the CPU
 * (a put to self: device blocks are written where they live). */
static void fill(char *buf, unsigned seed, unsigned char *plain)
{
    for (size_t i = 0; i < BUF; i++)
        plain[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 12)) | 1u;
    shmem_putmem(buf, plain, BUF, shmem_my_pe());
}

int main(int argc, char **argv)
{
    bool quick = false;
    double scale = 1;
    const char *label = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "qn:t:h")) != -1) {
        switch (opt) {
        case 'q': quick = true; break;
        case 'n': {
            char *end;
            errno = 0;
            scale = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(scale > 0) || scale > 1000) {
                fprintf(stderr, "path-bench: -n %s: give a scale factor > 0 (e.g. 0.5, 4)\n",
                        optarg);
                return 2;
            }
            break;
        }
        case 't': label = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    if (quick) {
        nbatches = 3;
        batch_target_s = 3e-3;
        bw_iters = 3;
    }
    batch_target_s *= scale;
    bw_iters = (int)(bw_iters * scale + 0.5);
    if (bw_iters < 1)
        bw_iters = 1;

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0)
            fprintf(stderr, "path-bench: needs 2 PEs: run under mpirun -np 2\n");
        shmem_finalize();
        return 1;
    }
    const char *tr = getenv("UVAS_TRANSPORT");
    ucx_only = tr && !strcasecmp(tr, "ucx");
    int dev = shmemx_device_present();
    struct uvas_range_desc rd;
    if (uvas_range(&rd) != UVAS_OK) {
        fprintf(stderr, "path-bench: uvas_range: %s\n", uvas_last_error());
        shmem_global_exit(1);
    }

    /* Symmetric buffers, the same sequence on every PE; each is 2 MiB and
     * so gets whole blocks of its own. */
    char *hsrc = shmem_malloc_with_hints(BUF, SHMEM_MALLOC_HOST_HEAP);
    char *hdst = shmem_malloc_with_hints(BUF, SHMEM_MALLOC_HOST_HEAP);
    char *htgt = shmem_malloc_with_hints(BUF, SHMEM_MALLOC_HOST_HEAP);
    char *dsrc = NULL, *ddst = NULL, *dtgt = NULL, *rmtgt = NULL;
    if (dev == 1) {
        dsrc = shmem_malloc_with_hints(BUF, SHMEM_MALLOC_DEVICE_HEAP);
        ddst = shmem_malloc_with_hints(BUF, SHMEM_MALLOC_DEVICE_HEAP);
        dtgt = shmem_malloc_with_hints(BUF, SHMEM_MALLOC_DEVICE_HEAP);
        rmtgt = shmem_malloc_with_hints(BUF, 0); /* unified: advised read-mostly */
    }
    unsigned char *plain = malloc(BUF), *plain2 = malloc(BUF);
    if (!hsrc || !hdst || !htgt || (dev == 1 && (!dsrc || !ddst || !dtgt || !rmtgt)) ||
        !plain || !plain2) {
        fprintf(stderr, "path-bench: PE %d: allocation failed\n", me);
        shmem_global_exit(1);
    }

    /* Touch everything (host buffers: CPU first touch through the put;
     * device buffers: written in device memory). Seeds differ per buffer
     * and PE so that a put that did not land shows. */
    fill(hsrc, 1 + 16u * (unsigned)me, plain);
    fill(hdst, 2 + 16u * (unsigned)me, plain);
    fill(htgt, 3 + 16u * (unsigned)me, plain);
    const char *rm_skip = NULL;
    if (dev == 1) {
        fill(dsrc, 4 + 16u * (unsigned)me, plain);
        fill(ddst, 5 + 16u * (unsigned)me, plain);
        fill(dtgt, 6 + 16u * (unsigned)me, plain);
        memset(rmtgt, 0x5a + me, BUF); /* CPU first touch: host-resident */
        if (uvas_advise(rmtgt, BUF, UVAS_ADVISE_READ_MOSTLY, 0) != UVAS_OK)
            rm_skip = "read-mostly advice refused (see uvas_advise)";
    }
    /* Did any PE refuse the advice? (Every PE must agree on the rows.) */
    int *rm_bad = shmem_calloc(1, sizeof *rm_bad);
    if (!rm_bad)
        shmem_global_exit(1);
    if (rm_skip)
        for (int pe = 0; pe < npes; pe++)
            shmem_int_atomic_set(rm_bad, 1, pe);
    shmem_barrier_all();
    if (*rm_bad && !rm_skip)
        rm_skip = "read-mostly advice refused on another PE";

    struct row rows[] = {
        {"CPU->CPU", hsrc, hdst, htgt, UVAS_RES_HOST, UVAS_RES_HOST,
         P(UVAS_PATH_CPU_CPU), P(UVAS_PATH_CPU_CPU), false, true, NULL, {{0}}, "", 0},
        {"CPU->GPU", hsrc, hdst, dtgt, UVAS_RES_HOST, UVAS_RES_DEVICE,
         P(UVAS_PATH_CPU_GPU) | P(UVAS_PATH_DEV_MAP), P(UVAS_PATH_GPU_CPU), false, true, NULL,
         {{0}}, "", 0},
        {"GPU->CPU", dsrc, ddst, htgt, UVAS_RES_DEVICE, UVAS_RES_HOST,
         P(UVAS_PATH_GPU_CPU), P(UVAS_PATH_CPU_GPU) | P(UVAS_PATH_DEV_MAP), false, true, NULL,
         {{0}}, "", 0},
        {"GPU->GPU", dsrc, ddst, dtgt, UVAS_RES_DEVICE, UVAS_RES_DEVICE,
         P(UVAS_PATH_GPU_GPU), P(UVAS_PATH_GPU_GPU), false, true, NULL, {{0}}, "", 0},
        {"AM", hsrc, hdst, rmtgt, UVAS_RES_HOST, UVAS_RES_DEVICE,
         P(UVAS_PATH_AM), P(UVAS_PATH_AM), true, true, NULL, {{0}}, "", 0},
    };
    int nrows = (int)(sizeof rows / sizeof rows[0]);
    char skip_dev[400];
    if (dev != 1) {
        snprintf(skip_dev, sizeof skip_dev, "shmemx_device_present() = %d: %s",
                 dev, rd.device_note ? rd.device_note : "?");
        for (int i = 1; i < nrows; i++)
            rows[i].run = false, rows[i].skip = "no device tier";
    } else if (rm_skip) {
        rows[4].run = false;
        rows[4].skip = rm_skip;
    }

    if (me == 0) {
        printf("# path-bench: %d PEs, PE 0 -> PE 1%s%s\n", npes, label ? ", label: " : "",
               label ? label : "");
        printf("# transport: %s; device: %s; block size %zu KiB; %s, scale %g\n",
               ucx_only ? "ucx (UVAS_TRANSPORT=ucx: every remote op over UCX)"
                        : "auto (shared windows on the node)",
               dev == 1 ? rd.device_name : "none", rd.block_size >> 10,
               quick ? "quick" : "full", scale);
        if (dev != 1)
            printf("# device rows skipped: %s\n", skip_dev);
        fflush(stdout);
    }

    for (int i = 0; i < nrows; i++) {
        struct row *r = &rows[i];
        for (int c = 0; c < NCELLS; c++)
            r->cell[c].value = -1;
        if (!r->run)
            continue;
        place(r);
        shmem_barrier_all();
        if (me == 0) {
            char msg[600] = "";
            if (!check_row(r, msg, sizeof msg)) {
                fprintf(stderr, "path-bench: ERROR: before timing: %s\n", msg);
                shmem_global_exit(1);
            }
            measure_row(r);
            verify_row(r, plain, plain2);
        }
        shmem_barrier_all();
    }

    int st = 0;
    if (me == 0) {
        print_table(rows, nrows);
        int notes = print_notes(rows, nrows);
        printf("# %s; '!' marks a figure whose ops did not take the row's path\n",
               notes ? "see the NOTEs above" : "every row took its path");
        if (errors)
            printf("# %d data ERROR(s): see stderr\n", errors);
        fflush(stdout);
        st = errors ? 1 : 0;
    }
    free(plain);
    free(plain2);
    shmem_finalize();
    return st;
}
