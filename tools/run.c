/* One run in a child process: uvas_init, the workload, counters, samples. */
#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_side.h"
#include "rng.h"
#include "trace.h"
#include "uvas.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void set_error(struct exp_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    r->ok = 0;
}

/* ---- the child ---- */

struct sampler {
    const unsigned char *buf;
    size_t len;
    struct exp_sample *s;
    uint32_t n, dropped, phase;
    double t0, excluded;       /* sampling time, left out of the wall time */
    size_t dev_tier_max;
    int rc;                    /* first failed query, 0 none */
    char err[256];
};

static void take_sample(void *arg)
{
    struct sampler *sp = arg;
    double a = now_s();
    struct uvas_range_info ri;
    struct uvas_stats st;
    int rc = uvas_query_range(sp->buf, sp->len, &ri);
    if (!rc)
        rc = uvas_stats_get(&st);
    if (rc) {
        if (!sp->rc) {
            sp->rc = rc;
            snprintf(sp->err, sizeof sp->err, "residency sample: %s: %s", uvas_strerror(rc),
                     uvas_last_error());
        }
    } else {
        if (st.tier[UVAS_RES_DEVICE].blocks > sp->dev_tier_max)
            sp->dev_tier_max = st.tier[UVAS_RES_DEVICE].blocks;
        if (sp->n < EXP_MAX_SAMPLES)
            sp->s[sp->n++] = (struct exp_sample){
                .t_s = a - sp->t0 - sp->excluded,
                .phase = sp->phase,
                .host = (uint32_t)ri.blocks[UVAS_RES_HOST],
                .device = (uint32_t)ri.blocks[UVAS_RES_DEVICE],
                .unpopulated = (uint32_t)ri.blocks[UVAS_RES_UNPOPULATED],
                .device_tier = (uint32_t)st.tier[UVAS_RES_DEVICE].blocks,
            };
        else
            sp->dropped++;
    }
    sp->phase++;
    sp->excluded += now_s() - a;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static void send_and_exit(int fd, struct exp_result *r, const struct exp_sample *s)
{
    if (!r->ok)
        r->nsamples = 0;
    int bad = write_all(fd, r, sizeof *r) || (r->nsamples &&
              write_all(fd, s, r->nsamples * sizeof *s));
    close(fd);
    _exit(bad ? 3 : 0);
}

static int untouched(const void *p, size_t len)
{
    struct uvas_range_info ri;
    return uvas_query_range(p, len, &ri) == UVAS_OK &&
           ri.blocks[UVAS_RES_HOST] + ri.blocks[UVAS_RES_DEVICE] == 0;
}

static void child(int fd, const struct exp_config *cfg, const struct workload *wl,
                  const char *policy)
{
    static struct exp_sample samples[EXP_MAX_SAMPLES];
    static struct exp_result r;
    memset(&r, 0, sizeof r);
    r.ok = 1;
    if (cfg->timeout_s)
        alarm(cfg->timeout_s);

    size_t bs0 = cfg->block_size ? cfg->block_size : (2u << 20);
    size_t need = wl->buffer_bytes(cfg->ws_bytes, bs0, cfg->trace);
    size_t grain = 2u << 20;
    size_t range = (need + grain - 1) / grain * grain * 2 + (64u << 20);
    struct uvas_options o = {
        .policy = policy,
        .size = range,
        .block_size = cfg->block_size,
        .device_size = cfg->device_bytes,
        .flags = UVAS_INIT_QUIET,
    };
    int rc = uvas_init(&o);
    if (rc) {
        set_error(&r, "uvas_init: %s: %s", uvas_strerror(rc), uvas_last_error());
        send_and_exit(fd, &r, samples);
    }
    struct uvas_range_desc d;
    if ((rc = uvas_range(&d))) {
        set_error(&r, "uvas_range: %s: %s", uvas_strerror(rc), uvas_last_error());
        send_and_exit(fd, &r, samples);
    }
    snprintf(r.device, sizeof r.device, "%s", d.device_note ? d.device_note : "");
    snprintf(r.fault, sizeof r.fault, "%s", d.fault_mode == UVAS_FAULT_EAGER ? "eager"
                                            : "userfaultfd");
    if (!d.device_present) {
        set_error(&r, "no device tier (%s): the workloads need one for the device's part",
                  d.device_note ? d.device_note : "none");
        uvas_finalize();
        send_and_exit(fd, &r, samples);
    }
    size_t bs = d.block_size;
    size_t len = wl->buffer_bytes(cfg->ws_bytes, bs, cfg->trace);
    r.block_size = bs;
    r.buffer_bytes = len;
    r.buffer_blocks = len / bs;
    r.device_capacity_blocks = d.device_capacity / bs;
    unsigned char *buf = uvas_aligned_alloc(bs, len, 0);
    if (!buf) {
        set_error(&r, "uvas_aligned_alloc(%zu, %zu): %s", bs, len, uvas_last_error());
        uvas_finalize();
        send_and_exit(fd, &r, samples);
    }

    char err[EXP_ERRLEN] = "";
    struct gpu_side gpu;
    if (gpu_side_open(&gpu, (enum gpu_side_mode)cfg->gpu_side, err, sizeof err)) {
        set_error(&r, "the GPU's part: %s", err);
        uvas_finalize();
        send_and_exit(fd, &r, samples);
    }
    struct sampler sp = {.buf = buf, .len = len, .s = samples};
    struct wl_ctx c = {
        .buf = buf,
        .len = len,
        .block_size = bs,
        .ws = cfg->ws_bytes,
        .seed = rng_seed_for(cfg->seed, wl->name),
        .trace = cfg->trace,
        .gpu = gpu_side_touch,
        .gpu_arg = &gpu,
        .gpu_sums = gpu.mode == GPU_SIDE_KERNEL,
        .err = err,
        .errlen = sizeof err,
        .phase = take_sample,
        .phase_arg = &sp,
        .untouched = untouched,
    };
    struct uvas_stats s0, s1;
    uvas_stats_reset_watermarks();
    uvas_stats_get(&s0);
    sp.t0 = now_s();
    take_sample(&sp); /* phase 0: the start */
    rc = wl->run(&c);
    double t1 = now_s();
    uvas_stats_get(&s1);

    r.wall_s = t1 - sp.t0 - sp.excluded;
    r.bytes_cpu = c.bytes_cpu;
    r.bytes_device = c.bytes_device;
    r.bytes_touched = c.bytes_cpu + c.bytes_device;
    r.faults = s1.faults - s0.faults;
    r.faults_device = s1.faults_device - s0.faults_device;
    r.migrations_to_device = s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE];
    r.migrations_to_host = s1.migrations[UVAS_RES_HOST] - s0.migrations[UVAS_RES_HOST];
    r.bytes_to_device = s1.bytes_migrated[UVAS_RES_DEVICE] - s0.bytes_migrated[UVAS_RES_DEVICE];
    r.bytes_to_host = s1.bytes_migrated[UVAS_RES_HOST] - s0.bytes_migrated[UVAS_RES_HOST];
    r.evictions = s1.evictions - s0.evictions;
    r.device_blocks_end = s1.tier[UVAS_RES_DEVICE].blocks;
    size_t high = s1.tier[UVAS_RES_DEVICE].bytes_high / bs;
    r.device_blocks_max = high > sp.dev_tier_max ? high : sp.dev_tier_max;
    if (r.device_blocks_end > r.device_blocks_max)
        r.device_blocks_max = r.device_blocks_end;
    r.nsamples = sp.n;
    r.samples_dropped = sp.dropped;

    if (rc)
        set_error(&r, "%s", err[0] ? err : "the workload failed");
    else if (sp.rc)
        set_error(&r, "%s", sp.err);
    else
        r.checksum = wl_checksum(&c); /* the CPU reads it all: after the counters */

    gpu_side_close(&gpu);
    if ((rc = uvas_try_free(buf)) && r.ok)
        set_error(&r, "uvas_free: %s: %s", uvas_strerror(rc), uvas_last_error());
    if ((rc = uvas_finalize()) && r.ok)
        set_error(&r, "uvas_finalize: %s: %s", uvas_strerror(rc), uvas_last_error());
    send_and_exit(fd, &r, samples);
}

/* ---- the parent ---- */

static size_t read_full(int fd, void *p, size_t n)
{
    char *c = p;
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, c + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    return got;
}

int run_one(const struct exp_config *cfg, const struct workload *wl, const char *policy,
            struct exp_result *r, struct exp_sample **samples)
{
    memset(r, 0, sizeof *r);
    *samples = NULL;
    int p[2];
    if (pipe(p)) {
        set_error(r, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        set_error(r, "fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        child(p[1], cfg, wl, policy);
        _exit(4); /* not reached */
    }
    close(p[1]);
    size_t got = read_full(p[0], r, sizeof *r);
    int complete = got == sizeof *r;
    if (complete && r->nsamples) {
        if (r->nsamples > EXP_MAX_SAMPLES) {
            complete = 0;
        } else {
            *samples = malloc(r->nsamples * sizeof **samples);
            if (!*samples ||
                read_full(p[0], *samples, r->nsamples * sizeof **samples) !=
                    r->nsamples * sizeof **samples)
                complete = 0;
        }
    }
    close(p[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!complete) {
        free(*samples);
        *samples = NULL;
        memset(r, 0, sizeof *r);
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
            set_error(r, "timed out after %u s (-T)", cfg->timeout_s);
        else if (WIFSIGNALED(st))
            set_error(r, "the run's process died of signal %d (%s)", WTERMSIG(st),
                      strsignal(WTERMSIG(st)));
        else
            set_error(r, "the run's process exited with status %d without sending results",
                      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    r->error[sizeof r->error - 1] = '\0';
    r->device[sizeof r->device - 1] = '\0';
    r->fault[sizeof r->fault - 1] = '\0';
    return 0;
}
