/* gnuplot scripts and data for throughput.png and residency-<workload>.png. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output.h"
#include "workloads.h"

static int find_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char buf[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n && n < sizeof buf - 16) {
            snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)n, path);
            if (!access(buf, X_OK))
                return 1;
        }
        path += n + (path[n] == ':');
    }
    return 0;
}

/* A gnuplot single-quoted string. */
static void gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* Where plot_all works: plot/ and its log, both checked by output.c. */
struct pdir {
    int fd;
    char path[4200];
    FILE *log;
};

/* gnuplot in pd, on the script `name` written there: fed on stdin from a
 * descriptor opened here, never by a name someone could swap. 0 if it
 * exited 0. Its messages go to plot/gnuplot.log. */
static int run_gnuplot(const struct pdir *pd, const char *name)
{
    int in = openat(pd->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (in < 0 || fstat(in, &st) || !S_ISREG(st.st_mode)) {
        if (in >= 0)
            close(in);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    fflush(pd->log);
    pid_t pid = fork();
    if (pid < 0) {
        close(in);
        return -1;
    }
    if (pid == 0) {
        if (fchdir(pd->fd) || fcntl(in, F_SETFL, 0) || dup2(in, 0) < 0)
            _exit(126);
        dup2(fileno(pd->log), 1);
        dup2(fileno(pd->log), 2);
        execlp("gnuplot", "gnuplot", (char *)NULL);
        _exit(127);
    }
    close(in);
    int st2;
    while (waitpid(pid, &st2, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st2) && WEXITSTATUS(st2) == 0 ? 0 : -1;
}

static FILE *open_in(const struct pdir *pd, const char *name)
{
    char path[4400], err[4600];
    snprintf(path, sizeof path, "%s/%s", pd->path, name);
    FILE *f = output_fopen(pd->fd, name, path, err, sizeof err);
    if (!f)
        fprintf(stderr, "uvas-exp: plots: %s\n", err);
    return f;
}

static int throughput_plot(const struct pdir *pd, const struct exp_config *cfg,
                           const struct exp_cell *cells, const int *plotted)
{
    FILE *d = open_in(pd, "throughput.dat");
    if (!d)
        return -1;
    fprintf(d, "# workload, then the median throughput in MB/s of each policy plotted\n");
    double lo = 0, hi = 0;
    for (size_t w = 0; w < cfg->nworkloads; w++) {
        fprintf(d, "%s", cfg->workloads[w]);
        for (size_t p = 0; p < cfg->npolicies; p++) {
            if (!plotted[p])
                continue;
            const struct exp_cell *c = &cells[w * cfg->npolicies + p];
            if (c->ok && c->throughput > 0) {
                double mb = c->throughput / 1e6;
                fprintf(d, " %.3f", mb);
                lo = lo == 0 || mb < lo ? mb : lo;
                hi = mb > hi ? mb : hi;
            } else
                fprintf(d, " -");
        }
        fputc('\n', d);
    }
    fclose(d);
    FILE *g = open_in(pd, "throughput.gp");
    if (!g)
        return -1;
    fprintf(g, "# gnuplot throughput.gp (in this folder) redraws ../throughput.png\n"
               "set terminal pngcairo size 1100,560 noenhanced font 'sans,10'\n"
               "set output '../throughput.png'\n"
               "set title 'uvas-exp: throughput per policy (median of %u repetitions, %zu MiB "
               "working set, seed %llu)'\n"
               "set style data histogram\n"
               "set style histogram clustered gap 1\n"
               "set style fill solid 0.85 border -1\n"
               "set boxwidth 0.9\n"
               "set datafile missing '-'\n"
               "set ylabel 'MB/s: bytes touched by CPU and device / wall time (log scale)'\n"
               "set logscale y\n"
               "set grid ytics mytics\n"
               "set key outside right top vertical title 'policy'\n"
               "set xtics nomirror\n"
               "set yrange [%g:%g]\n"
               "plot ",
            cfg->reps, cfg->ws_bytes >> 20, (unsigned long long)cfg->seed,
            lo > 0 ? lo / 2 : 1e-3, hi > 0 ? hi * 2 : 1);
    int col = 2;
    for (size_t p = 0; p < cfg->npolicies; p++) {
        if (!plotted[p])
            continue;
        if (col == 2)
            fprintf(g, "'throughput.dat' using 2:xtic(1) title ");
        else
            fprintf(g, ", \\\n     '' using %d title ", col);
        gp_str(g, cfg->policies[p]);
        col++;
    }
    fputc('\n', g);
    fclose(g);
    return run_gnuplot(pd, "throughput.gp");
}

static int residency_plot(const struct pdir *pd, const struct exp_config *cfg,
                          const struct exp_run *runs, size_t nruns, size_t w)
{
    const char *wl = cfg->workloads[w];
    /* The first completed repetition of each policy. */
    const struct exp_run **pick = calloc(cfg->npolicies, sizeof *pick);
    if (!pick)
        return -1;
    size_t np = 0;
    for (size_t p = 0; p < cfg->npolicies; p++) {
        for (size_t i = 0; i < nruns && !pick[p]; i++)
            if (runs[i].w == w && runs[i].p == p && runs[i].r.ok && runs[i].r.nsamples)
                pick[p] = &runs[i];
        np += pick[p] != NULL;
    }
    if (!np) {
        free(pick);
        return 1; /* nothing to draw */
    }
    char name[256];
    snprintf(name, sizeof name, "residency-%s.dat", wl);
    FILE *d = open_in(pd, name);
    if (!d) {
        free(pick);
        return -1;
    }
    uint64_t blocks = 0, bs = 0;
    for (size_t p = 0, k = 0; p < cfg->npolicies; p++) {
        if (!pick[p])
            continue;
        const struct exp_run *x = pick[p];
        blocks = x->r.buffer_blocks;
        bs = x->r.block_size;
        fprintf(d, "%s# %s, rep %u: t_ms phase host device unpopulated\n", k++ ? "\n\n" : "",
                cfg->policies[p], x->rep);
        for (uint32_t s = 0; s < x->r.nsamples; s++)
            fprintf(d, "%.3f %u %u %u %u\n", x->samples[s].t_s * 1e3, x->samples[s].phase,
                    x->samples[s].host, x->samples[s].device, x->samples[s].unpopulated);
    }
    fclose(d);
    snprintf(name, sizeof name, "residency-%s.gp", wl);
    FILE *g = open_in(pd, name);
    if (!g) {
        free(pick);
        return -1;
    }
    size_t cols = np < 3 ? np : 3, rows = (np + cols - 1) / cols;
    fprintf(g, "# gnuplot %s (in this folder) redraws ../residency-%s.png\n"
               "set terminal pngcairo size %zu,%zu noenhanced font 'sans,9'\n"
               "set output '../residency-%s.png'\n"
               "set multiplot layout %zu,%zu title 'uvas-exp: residency of the %s buffer "
               "(%llu blocks of %llu KiB) at phase boundaries, first repetition'\n"
               "set xlabel 'ms since the workload started'\n"
               "set ylabel 'blocks'\n"
               "set yrange [0:%llu]\n"
               "set grid\n"
               "set key top center horizontal\n",
            name, wl, 440 * cols, 330 * rows + 40, wl, rows, cols, wl,
            (unsigned long long)blocks, (unsigned long long)(bs >> 10),
            (unsigned long long)(blocks + blocks / 4 + 1));
    for (size_t p = 0, k = 0; p < cfg->npolicies; p++) {
        if (!pick[p])
            continue;
        fprintf(g, "set title ");
        gp_str(g, cfg->policies[p]);
        fprintf(g, "\nplot 'residency-%s.dat' index %zu using 1:4 with linespoints lw 2 pt 7 "
                   "ps 0.5 lc rgb '#c0392b' title 'device', \\\n"
                   "     '' index %zu using 1:3 with linespoints lw 2 pt 5 ps 0.5 "
                   "lc rgb '#2e86c1' title 'host', \\\n"
                   "     '' index %zu using 1:5 with lines dt 2 lc rgb '#7f8c8d' "
                   "title 'unpopulated'\n",
                wl, k, k, k);
        k++;
    }
    fprintf(g, "unset multiplot\n");
    fclose(g);
    free(pick);
    return run_gnuplot(pd, name);
}

/* Every name plot_all may write, beside the results (png) or in plot/. */
static void remove_owned(int dfd, const char *ext1, const char *ext2)
{
    char name[256];
    for (int e = 0; e < 2; e++) {
        const char *ext = e ? ext2 : ext1;
        if (!ext)
            continue;
        snprintf(name, sizeof name, "throughput.%s", ext);
        unlinkat(dfd, name, 0);
        for (size_t w = 0; w < exp_nworkloads; w++) {
            snprintf(name, sizeof name, "residency-%s.%s", exp_workloads[w].name, ext);
            unlinkat(dfd, name, 0);
        }
    }
}

void plot_remove_stale(const struct exp_config *cfg)
{
    remove_owned(cfg->outfd, "png", NULL);
    int fd = openat(cfg->outfd, "plot", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    remove_owned(fd, "dat", "gp");
    unlinkat(fd, "gnuplot.log", 0);
    close(fd);
}

int plot_all(const struct exp_config *cfg, const struct exp_run *runs, size_t nruns,
             const struct exp_cell *cells)
{
    if (!find_gnuplot()) {
        fprintf(stderr, "uvas-exp: gnuplot not found (Debian: apt-get install gnuplot-nox): "
                        "plots skipped\n");
        return 0;
    }
    struct pdir pd;
    char err[4600], log[4400];
    snprintf(pd.path, sizeof pd.path, "%s/plot", cfg->outdir);
    snprintf(log, sizeof log, "%s/gnuplot.log", pd.path);
    if ((pd.fd = output_dir_open(cfg->outfd, pd.path, "plot", err, sizeof err)) < 0) {
        fprintf(stderr, "uvas-exp: plots skipped: %s\n", err);
        return 0;
    }
    if (!(pd.log = output_fopen(pd.fd, "gnuplot.log", log, err, sizeof err))) {
        fprintf(stderr, "uvas-exp: plots skipped: %s\n", err);
        close(pd.fd);
        return 0;
    }
    int *plotted = calloc(cfg->npolicies ? cfg->npolicies : 1, sizeof *plotted);
    int any = 0, made = 0, failed = 0;
    for (size_t p = 0; plotted && p < cfg->npolicies; p++)
        for (size_t w = 0; w < cfg->nworkloads; w++)
            if (cells[w * cfg->npolicies + p].ok)
                any = plotted[p] = 1;
    if (any) {
        if (throughput_plot(&pd, cfg, cells, plotted))
            failed++;
        else
            made++;
        for (size_t w = 0; w < cfg->nworkloads; w++) {
            int rc = residency_plot(&pd, cfg, runs, nruns, w);
            if (rc < 0)
                failed++;
            else if (rc == 0)
                made++;
        }
    }
    free(plotted);
    fclose(pd.log);
    close(pd.fd);
    if (failed)
        fprintf(stderr, "uvas-exp: gnuplot failed for %d plot%s (see %s); the results are "
                        "unaffected\n", failed, failed == 1 ? "" : "s", log);
    return made;
}
