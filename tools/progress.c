/* Progress on stderr. */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void clock_str(char *buf, size_t n, double s)
{
    unsigned t = (unsigned)(s + 0.5);
    snprintf(buf, n, "%u:%02u", t / 60, t % 60);
}

void progress_init(struct progress *pg, size_t total, int quiet)
{
    *pg = (struct progress){.total = total, .quiet = quiet, .tty = isatty(2), .t0 = now_s()};
}

void progress_begin(struct progress *pg, const char *workload, const char *policy,
                    unsigned rep, unsigned reps)
{
    if (pg->quiet || !pg->tty)
        return;
    double el = now_s() - pg->t0;
    char e[16], eta[16] = "?";
    clock_str(e, sizeof e, el);
    if (pg->done)
        clock_str(eta, sizeof eta, el / (double)pg->done * (double)(pg->total - pg->done));
    fprintf(stderr, "\r\033[K[%zu/%zu %3.0f%%] %s, %s, rep %u/%u  elapsed %s, left ~%s",
            pg->done + 1, pg->total, 100.0 * (double)pg->done / (double)pg->total, workload,
            policy, rep, reps, e, eta);
    fflush(stderr);
    pg->dirty = 1;
}

void progress_end(struct progress *pg, const char *workload, const char *policy,
                  unsigned rep, unsigned reps, const struct exp_result *r, int repeat)
{
    pg->done++;
    if (pg->quiet) {
        /* Quiet hides progress, not why a run failed: the closing "no run
         * completed" points here. A rejected policy's repeats add nothing. */
        if (!r->ok && !repeat)
            fprintf(stderr, "uvas-exp: %s, %s, rep %u/%u: error: %s\n", workload, policy, rep,
                    reps, r->error);
        return;
    }
    if (pg->tty) {
        if (!r->ok && !repeat)
            fprintf(stderr, "\r\033[K[%zu/%zu] %s, %s, rep %u/%u: error: %s\n", pg->done,
                    pg->total, workload, policy, rep, reps, r->error);
        return;
    }
    char e[16];
    clock_str(e, sizeof e, now_s() - pg->t0);
    if (r->ok)
        fprintf(stderr, "[%zu/%zu %s] %s, %s, rep %u/%u: %.1f ms, %.1f MB/s, %llu/%llu "
                        "blocks to device/host\n",
                pg->done, pg->total, e, workload, policy, rep, reps, r->wall_s * 1e3,
                r->wall_s > 0 ? (double)r->bytes_touched / r->wall_s / 1e6 : 0.0,
                (unsigned long long)r->migrations_to_device,
                (unsigned long long)r->migrations_to_host);
    else
        fprintf(stderr, "[%zu/%zu %s] %s, %s, rep %u/%u: error: %s\n", pg->done, pg->total, e,
                workload, policy, rep, reps, r->error);
}

void progress_finish(struct progress *pg)
{
    if (pg->dirty && !pg->quiet && pg->tty) {
        char e[16];
        clock_str(e, sizeof e, now_s() - pg->t0);
        fprintf(stderr, "\r\033[K%zu runs in %s\n", pg->done, e);
    }
    pg->dirty = 0;
}
