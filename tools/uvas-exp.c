/*
 * uvas-exp: the experiment runner. Runs workloads under a list of
 * placement policies, repeats each, and writes CSV, JSON, a summary table
 * and plots (docs/experiments.md).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp.h"
#include "gpu_side.h"
#include "output.h"
#include "plot.h"
#include "progress.h"
#include "run.h"
#include "summary.h"
#include "trace.h"
#include "workloads.h"

#define DEFAULT_POLICIES \
    "first-touch;host;device;interleave:ratio=0.5;access-counter:threshold=4;hot-cold"
#define DEFAULT_REPS 3
#define DEFAULT_MIB 64
#define DEFAULT_SEED 1
#define DEFAULT_OUT "exp-out"
#define DEFAULT_TIMEOUT 300
#define DEFAULT_BLOCK ((size_t)2 << 20) /* the library's, without UVAS_BLOCK_SIZE */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: uvas-exp [options]\n"
        "Runs workloads under placement policies, each run in a fresh process with its\n"
        "own uvas_init; writes results.csv, results.json, timeline.csv, summary.csv and\n"
        "PNG plots (gnuplot) to the output directory, and a summary table to stdout.\n"
        "\n"
        "  -w, --workloads LIST   comma-separated workloads, or 'all' (default: all\n"
        "                         built-ins; 'trace' needs -t)\n"
        "  -p, --policy LIST      policies separated by ';', the option may repeat; a\n"
        "                         policy may carry parameters: 'access-counter:threshold=4'\n"
        "                         (default: '%s')\n"
        "  -r, --reps N           repetitions of each workload x policy (default %d)\n"
        "  -m, --mib N            working set in MiB (default %d)\n"
        "  -b, --block-size SIZE  residency block size, 4K..2M, power of two (default: the\n"
        "                         library's, UVAS_BLOCK_SIZE or 2M)\n"
        "  -d, --device-mib N     device tier capacity in MiB (default: half the working\n"
        "                         set, so the device is oversubscribed, and at least one\n"
        "                         block; 0: the library's default, UVAS_DEVICE_SIZE or\n"
        "                         90%% of the device)\n"
        "  -s, --seed N           seed of the access sequences (default %d); the same seed\n"
        "                         gives the same accesses for every policy and repetition\n"
        "  -o, --out DIR          output directory, created if needed (default %s); it\n"
        "                         must be yours and not writable by others; earlier plots\n"
        "                         in it are removed\n"
        "  -t, --trace FILE       replay FILE as the 'trace' workload (added to -w); one\n"
        "                         access a line: '<c|d> <r|w> <offset> <length>', 'phase'\n"
        "                         lines for residency samples, '#' comments\n"
        "  -T, --timeout S        seconds a run may take before it is killed (default %d)\n"
        "  -g, --gpu SIDE         the GPU's part: 'kernel' (default: compute kernels over\n"
        "                         the workload's pointers, include/uvas.glsl) or 'copy'\n"
        "                         (the copy engine's reads and writes, uvas_device_access)\n"
        "  -q, --quiet            no progress and no table (errors still shown)\n"
        "      --no-plots         do not run gnuplot\n"
        "  -h, --help             this text\n"
        "\n"
        "workloads:\n",
        DEFAULT_POLICIES, DEFAULT_REPS, DEFAULT_MIB, DEFAULT_SEED, DEFAULT_OUT,
        DEFAULT_TIMEOUT);
    for (size_t i = 0; i < exp_nworkloads; i++)
        fprintf(f, "  %-9s %s\n", exp_workloads[i].name, exp_workloads[i].summary);
    fprintf(f, "\nExit status: 0 when at least one run completed and the results were\n"
               "written (failed runs are reported in them), 1 otherwise, 2 on bad usage.\n"
               "The UVAS_* environment applies to what the options leave open\n"
               "(UVAS_DEVICE, UVAS_FAULT, ...).\n");
}

static void die_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "uvas-exp: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nuvas-exp: see uvas-exp --help\n");
    exit(2);
}

static int parse_u64(const char *s, uint64_t *out)
{
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, s += 2;
    if (!isxdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_block(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10, end++;
    else if (*end == 'm' || *end == 'M')
        shift = 20, end++;
    /* Before the shift: 16 EiB + 4K shifted wrapped around to a valid 4K. */
    if (v > (2ull << 20) >> shift)
        return -1;
    v <<= shift;
    if (*end == 'i' && end[1] == 'B')
        end += 2;
    else if (*end == 'B')
        end++;
    if (*end || v < 4096 || v > (2u << 20) || (v & (v - 1)))
        return -1;
    *out = (size_t)v;
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static void add_policies(struct exp_config *cfg, const char *list)
{
    char *copy = strdup(list);
    if (!copy) {
        perror("uvas-exp");
        exit(1);
    }
    char *save = NULL;
    for (char *tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        tok = trim(tok);
        if (!*tok)
            continue;
        char **n = realloc(cfg->policies, (cfg->npolicies + 1) * sizeof *n);
        if (!n || !(n[cfg->npolicies] = strdup(tok))) {
            perror("uvas-exp");
            exit(1);
        }
        cfg->policies = n;
        cfg->npolicies++;
    }
    free(copy);
}

static void add_workload(struct exp_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nworkloads; i++)
        if (!strcmp(cfg->workloads[i], name))
            return;
    const char **n = realloc(cfg->workloads, (cfg->nworkloads + 1) * sizeof *n);
    if (!n) {
        perror("uvas-exp");
        exit(1);
    }
    n[cfg->nworkloads++] = workload_find(name)->name;
    cfg->workloads = n;
}

static void add_workloads(struct exp_config *cfg, const char *list)
{
    char *copy = strdup(list);
    if (!copy) {
        perror("uvas-exp");
        exit(1);
    }
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        tok = trim(tok);
        if (!*tok)
            continue;
        if (!strcmp(tok, "all")) {
            for (size_t i = 0; i < exp_nworkloads; i++)
                if (exp_workloads[i].builtin)
                    add_workload(cfg, exp_workloads[i].name);
        } else if (workload_find(tok)) {
            add_workload(cfg, tok);
        } else {
            char msg[512];
            size_t n = (size_t)snprintf(msg, sizeof msg, "-w: unknown workload '%%s': use");
            for (size_t i = 0; i < exp_nworkloads && n < sizeof msg; i++)
                n += (size_t)snprintf(msg + n, sizeof msg - n, " %s", exp_workloads[i].name);
            if (n < sizeof msg)
                snprintf(msg + n, sizeof msg - n, " or all");
            die_usage(msg, tok);
        }
    }
    free(copy);
}

/* A policy whose string uvas_init rejected is not tried again. */
static int init_rejected(const struct exp_result *r)
{
    return !r->ok && (!strncmp(r->error, "uvas_init: UVAS_ERR_INVAL", 25) ||
                      !strncmp(r->error, "uvas_init: UVAS_ERR_ENV", 23));
}

/* Static: what it holds stays reachable when a usage error exits early. */
static struct exp_config cfg = {
    .reps = DEFAULT_REPS,
    .ws_bytes = (size_t)DEFAULT_MIB << 20,
    .seed = DEFAULT_SEED,
    .outdir = DEFAULT_OUT,
    .plots = 1,
    .timeout_s = DEFAULT_TIMEOUT,
};

int main(int argc, char **argv)
{
    const char *wlist = NULL;
    int device_set = 0, policy_given = 0;
    uint64_t device_mib = 0;
    enum { OPT_NO_PLOTS = 256 };
    static const struct option longopts[] = {
        {"workloads", required_argument, NULL, 'w'},
        {"policy", required_argument, NULL, 'p'},
        {"policies", required_argument, NULL, 'p'},
        {"reps", required_argument, NULL, 'r'},
        {"mib", required_argument, NULL, 'm'},
        {"block-size", required_argument, NULL, 'b'},
        {"device-mib", required_argument, NULL, 'd'},
        {"seed", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},
        {"trace", required_argument, NULL, 't'},
        {"timeout", required_argument, NULL, 'T'},
        {"gpu", required_argument, NULL, 'g'},
        {"quiet", no_argument, NULL, 'q'},
        {"no-plots", no_argument, NULL, OPT_NO_PLOTS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    uint64_t v;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":w:p:r:m:b:d:s:o:t:T:g:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'w':
            wlist = optarg;
            break;
        case 'p':
            add_policies(&cfg, optarg);
            policy_given = 1;
            break;
        case 'r':
            if (parse_u64(optarg, &v) || v < 1 || v > 1000)
                die_usage("-r %s: give a number of repetitions from 1 to 1000", optarg);
            cfg.reps = (unsigned)v;
            break;
        case 'm':
            if (parse_u64(optarg, &v) || v < 1 || v > (1u << 20))
                die_usage("-m %s: give the working set in MiB, 1 to 1048576", optarg);
            cfg.ws_bytes = (size_t)v << 20;
            break;
        case 'b':
            if (parse_block(optarg, &cfg.block_size))
                die_usage("-b %s: give a power of two from 4K to 2M (e.g. 64K)", optarg);
            break;
        case 'd':
            if (parse_u64(optarg, &device_mib) || device_mib > (1u << 24))
                die_usage("-d %s: give the device tier's capacity in MiB (0: the library's "
                          "default)", optarg);
            device_set = 1;
            break;
        case 's':
            if (parse_u64(optarg, &cfg.seed))
                die_usage("-s %s: give a seed, a decimal or 0x hex 64-bit number", optarg);
            break;
        case 'o':
            if (!*optarg)
                die_usage("-o%s: give an output directory", "");
            cfg.outdir = optarg;
            break;
        case 't':
            cfg.trace_path = optarg;
            break;
        case 'T':
            if (parse_u64(optarg, &v) || v < 1 || v > 86400)
                die_usage("-T %s: give a timeout in seconds, 1 to 86400", optarg);
            cfg.timeout_s = (unsigned)v;
            break;
        case 'g':
            if (!strcmp(optarg, "kernel"))
                cfg.gpu_side = GPU_SIDE_KERNEL;
            else if (!strcmp(optarg, "copy"))
                cfg.gpu_side = GPU_SIDE_COPY;
            else
                die_usage("-g %s: give 'kernel' or 'copy'", optarg);
            break;
        case 'q':
            cfg.quiet = 1;
            break;
        case OPT_NO_PLOTS:
            cfg.plots = 0;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            die_usage("option %s needs a value", argv[optind - 1]);
            break;
        default:
            die_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die_usage("unexpected argument '%s' (options only)", argv[optind]);

    add_workloads(&cfg, wlist ? wlist : "all");
    if (cfg.trace_path) {
        char err[1024];
        if (!(cfg.trace = trace_load(cfg.trace_path, err, sizeof err))) {
            fprintf(stderr, "uvas-exp: %s\n", err);
            return 2;
        }
        add_workload(&cfg, "trace");
    } else {
        for (size_t i = 0; i < cfg.nworkloads; i++)
            if (!strcmp(cfg.workloads[i], "trace"))
                die_usage("-w trace: give the trace file with -t FILE%s", "");
    }
    if (!cfg.nworkloads)
        die_usage("-w: no workload given%s", "");
    if (!cfg.npolicies && policy_given)
        die_usage("-p: no policy given%s", "");
    if (!cfg.npolicies)
        add_policies(&cfg, DEFAULT_POLICIES);
    /* The block size the runs will get, to size the device tier by: the
     * library refuses a tier smaller than one block, and the default tier
     * (half of -m 2) was, for a block size the user never chose. */
    size_t bs = cfg.block_size;
    const char *env_bs = getenv("UVAS_BLOCK_SIZE");
    if (!bs && (!env_bs || !*env_bs || parse_block(env_bs, &bs)))
        bs = env_bs && *env_bs ? 0 : DEFAULT_BLOCK; /* unparsed: the runs report it */
    cfg.device_bytes = device_set ? (size_t)device_mib << 20 : cfg.ws_bytes / 2;
    if (!device_set && cfg.device_bytes < bs)
        cfg.device_bytes = bs;
    if (cfg.device_bytes && cfg.device_bytes < bs) {
        char msg[256];
        snprintf(msg, sizeof msg, "-d %%s: the device tier must hold at least one block of "
                 "%zu KiB (%s): give -d %zu or more, or a smaller -b", bs >> 10,
                 cfg.block_size ? "-b" : env_bs ? "UVAS_BLOCK_SIZE" : "the default block size",
                 (bs + (1u << 20) - 1) >> 20);
        char arg[32];
        snprintf(arg, sizeof arg, "%llu", (unsigned long long)device_mib);
        die_usage(msg, arg);
    }

    char err[1024];
    if ((cfg.outfd = output_mkdir(cfg.outdir, err, sizeof err)) < 0) {
        fprintf(stderr, "uvas-exp: %s\n", err);
        return 1;
    }

    size_t total = cfg.nworkloads * cfg.npolicies * cfg.reps;
    struct exp_run *runs = calloc(total, sizeof *runs);
    char **rejected = calloc(cfg.npolicies, sizeof *rejected);
    if (!runs || !rejected) {
        perror("uvas-exp");
        return 1;
    }
    if (!cfg.quiet) {
        fprintf(stderr, "uvas-exp: %zu workload%s x %zu polic%s x %u repetition%s = %zu runs; "
                        "working set %zu MiB, device tier ",
                cfg.nworkloads, cfg.nworkloads == 1 ? "" : "s", cfg.npolicies,
                cfg.npolicies == 1 ? "y" : "ies", cfg.reps, cfg.reps == 1 ? "" : "s", total,
                cfg.ws_bytes >> 20);
        if (cfg.device_bytes)
            fprintf(stderr, "%zu MiB", cfg.device_bytes >> 20);
        else
            fprintf(stderr, "default");
        fprintf(stderr, ", seed %llu, output in %s/\n", (unsigned long long)cfg.seed,
                cfg.outdir);
    }

    struct progress pg;
    progress_init(&pg, total, cfg.quiet);
    size_t nruns = 0, nok = 0;
    for (size_t w = 0; w < cfg.nworkloads; w++) {
        const struct workload *wl = workload_find(cfg.workloads[w]);
        for (unsigned rep = 1; rep <= cfg.reps; rep++)
            for (size_t p = 0; p < cfg.npolicies; p++) {
                struct exp_run *x = &runs[nruns++];
                x->w = w;
                x->p = p;
                x->rep = rep;
                progress_begin(&pg, wl->name, cfg.policies[p], rep, cfg.reps);
                int repeat = rejected[p] != NULL;
                if (repeat) {
                    snprintf(x->r.error, sizeof x->r.error, "%s", rejected[p]);
                } else {
                    if (run_one(&cfg, wl, cfg.policies[p], &x->r, &x->samples)) {
                        progress_finish(&pg);
                        fprintf(stderr, "uvas-exp: cannot start a run: %s\n", x->r.error);
                        return 1;
                    }
                    if (init_rejected(&x->r))
                        rejected[p] = strdup(x->r.error);
                }
                nok += x->r.ok;
                progress_end(&pg, wl->name, cfg.policies[p], rep, cfg.reps, &x->r, repeat);
            }
    }
    progress_finish(&pg);

    summary_check_data(NULL, &cfg, runs, nruns);
    struct exp_cell *cells = summary_compute(&cfg, runs, nruns);
    if (!cells) {
        perror("uvas-exp");
        return 1;
    }
    int rc = 0;
    if (output_write(&cfg, runs, nruns, cells, err, sizeof err)) {
        fprintf(stderr, "uvas-exp: %s\n", err);
        rc = 1;
    }
    if (!cfg.quiet)
        summary_print(stdout, &cfg, cells);
    fflush(stdout);
    summary_check_data(stderr, &cfg, runs, nruns); /* the warnings, after the table */
    plot_remove_stale(&cfg);
    int plots = cfg.plots ? plot_all(&cfg, runs, nruns, cells) : 0;
    if (!cfg.quiet && !rc)
        printf("\nwrote %s/results.csv, results.json, timeline.csv, summary.csv%s%s\n",
               cfg.outdir, plots ? " and PNG plots" : "",
               plots ? " (throughput.png, residency-<workload>.png)" : "");
    fflush(stdout);
    if (!nok) {
        fprintf(stderr, "uvas-exp: no run completed (see the errors above)\n");
        rc = 1;
    }

    for (size_t i = 0; i < nruns; i++)
        free(runs[i].samples);
    for (size_t p = 0; p < cfg.npolicies; p++) {
        free(rejected[p]);
        free(cfg.policies[p]);
    }
    free(rejected);
    free(runs);
    free(cells);
    free(cfg.policies);
    free(cfg.workloads);
    trace_free(cfg.trace);
    return rc;
}
