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

/* gnuplot in dir, on script; 0 if it exited 0. Its messages go to
 * dir/gnuplot.log. */
static int run_gnuplot(const char *dir, const char *script)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (chdir(dir))
            _exit(126);
        int fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static FILE *open_in(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "uvas-exp: plots: cannot write '%s': %s\n", path, strerror(errno));
    return f;
}

static int throughput_plot(const char *pdir, const struct exp_config *cfg,
                           const struct exp_cell *cells, const int *plotted)
{
    FILE *d = open_in(pdir, "throughput.dat");
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
    FILE *g = open_in(pdir, "throughput.gp");
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
    return run_gnuplot(pdir, "throughput.gp");
}

static int residency_plot(const char *pdir, const struct exp_config *cfg,
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
    FILE *d = open_in(pdir, name);
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
    FILE *g = open_in(pdir, name);
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
    return run_gnuplot(pdir, name);
}

int plot_all(const struct exp_config *cfg, const struct exp_run *runs, size_t nruns,
             const struct exp_cell *cells)
{
    if (!find_gnuplot()) {
        fprintf(stderr, "uvas-exp: gnuplot not found (Debian: apt-get install gnuplot-nox): "
                        "plots skipped\n");
        return 0;
    }
    char pdir[4200], err[512];
    snprintf(pdir, sizeof pdir, "%s/plot", cfg->outdir);
    if (output_mkdir(pdir, err, sizeof err)) {
        fprintf(stderr, "uvas-exp: plots skipped: %s\n", err);
        return 0;
    }
    char log[4300];
    snprintf(log, sizeof log, "%s/gnuplot.log", pdir);
    unlink(log);
    int *plotted = calloc(cfg->npolicies ? cfg->npolicies : 1, sizeof *plotted);
    if (!plotted)
        return 0;
    int any = 0;
    for (size_t p = 0; p < cfg->npolicies; p++)
        for (size_t w = 0; w < cfg->nworkloads; w++)
            if (cells[w * cfg->npolicies + p].ok)
                any = plotted[p] = 1;
    int made = 0, failed = 0;
    if (any) {
        if (throughput_plot(pdir, cfg, cells, plotted))
            failed++;
        else
            made++;
        for (size_t w = 0; w < cfg->nworkloads; w++) {
            int rc = residency_plot(pdir, cfg, runs, nruns, w);
            if (rc < 0)
                failed++;
            else if (rc == 0)
                made++;
        }
    }
    free(plotted);
    if (failed)
        fprintf(stderr, "uvas-exp: gnuplot failed for %d plot%s (see %s); the results are "
                        "unaffected\n", failed, failed == 1 ? "" : "s", log);
    return made;
}
