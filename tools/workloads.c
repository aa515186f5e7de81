/*
 * The built-in workloads and trace replay (docs/experiments.md says what
 * each does and why policies differ on it).
 */
#include "workloads.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rng.h"
#include "trace.h"

#define STREAM_ITERS 4      /* CPU pass + device pass, this many times */
#define RANDOM_PHASES 8     /* CPU updates then a device sweep, this many times */
#define RANDOM_UPDATES_DIV 16 /* updates per phase: table words / this */
#define STENCIL_SWEEPS 6
#define STENCIL_STRIPS 8    /* the grid's strips; the device reads their halo rows */
#define HOTSET_PHASES 8
#define HOTSET_ROUNDS 8     /* per phase, CPU and device alternately */
#define HOTSET_WINDOW_DIV 8 /* the hot window: 1/8 of the buffer */
#define HOTSET_ACCESS (128u << 10)
#define HOTSET_HOT_PERCENT 90
#define PINGPONG_ROUNDS 8

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

static int failf(struct wl_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static void phase(struct wl_ctx *c)
{
    c->phase(c->phase_arg);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

/* CPU reads [off, off+len): every 8-byte word summed into the sink. */
static void cpu_read(struct wl_ctx *c, size_t off, size_t len)
{
    const unsigned char *p = c->buf + off;
    uint64_t s = 0;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        s += w;
    }
    for (; i < len; i++)
        s += p[i];
    c->sink = mix(c->sink, s);
    c->bytes_cpu += len;
}

static void cpu_write(struct wl_ctx *c, size_t off, size_t len, unsigned char value)
{
    memset(c->buf + off, value, len);
    c->bytes_cpu += len;
}

/* The GPU reads or writes [off, off+len); what a kernel read goes into the
 * sink as the CPU's reads do (*sum, if asked for: its 32-bit word sum). */
static int dev_sum(struct wl_ctx *c, size_t off, size_t len, int write, unsigned char value,
                   uint32_t *sum)
{
    uint32_t s;
    char why[EXP_ERRLEN - 64];
    if (c->gpu(c->gpu_arg, c->buf + off, len, write, value, &s, why, sizeof why))
        return failf(c, "buffer + %zu: %s", off, why);
    if (!write)
        c->sink = mix(c->sink, s);
    if (sum)
        *sum = s;
    c->bytes_device += len;
    return 0;
}

static int dev(struct wl_ctx *c, size_t off, size_t len, int write, unsigned char value)
{
    return dev_sum(c, off, len, write, value, NULL);
}

static size_t ws_bytes(size_t ws, size_t bs, const struct trace *t)
{
    (void)t;
    return round_up(ws < bs ? bs : ws, bs);
}

/* ---- stream: a CPU pass, then a device pass, over the whole array ---- */

static int run_stream(struct wl_ctx *c)
{
    uint64_t *a = (uint64_t *)c->buf;
    size_t n = c->len / 8;
    for (unsigned it = 0; it < STREAM_ITERS; it++) {
        for (size_t i = 0; i < n; i++)
            a[i] = a[i] * 3 + (i ^ it);
        c->bytes_cpu += c->len;
        phase(c);
        if (dev(c, 0, c->len, 0, 0))
            return -1;
        phase(c);
    }
    return 0;
}

/* ---- random: GUPS-like 8-byte updates by the CPU, a device sweep every K ---- */

static int run_random(struct wl_ctx *c)
{
    uint64_t *a = (uint64_t *)c->buf;
    size_t n = c->len / 8;
    size_t k = n / RANDOM_UPDATES_DIV ? n / RANDOM_UPDATES_DIV : 1;
    uint64_t rng = c->seed;
    for (unsigned ph = 0; ph < RANDOM_PHASES; ph++) {
        for (size_t u = 0; u < k; u++) {
            uint64_t r = rng_next(&rng);
            a[r % n] ^= r;
        }
        c->bytes_cpu += k * 8;
        phase(c);
        if (dev(c, 0, c->len, 0, 0))
            return -1;
        phase(c);
    }
    return 0;
}

/* ---- stencil: 5-point sweeps by the CPU, device reads halo rows / grid ---- */

/* Side of the grids: two n x n grids of doubles fill the working set. */
static size_t stencil_n(size_t ws)
{
    size_t cells = ws / 16, n = 1;
    while ((n + 1) * (n + 1) <= cells)
        n++;
    return n < 16 ? 16 : n;
}

static size_t stencil_bytes(size_t ws, size_t bs, const struct trace *t)
{
    (void)t;
    size_t n = stencil_n(ws);
    return round_up(2 * n * n * sizeof(double), bs);
}

static int run_stencil(struct wl_ctx *c)
{
    size_t n = stencil_n(c->ws);
    size_t grid = n * n * sizeof(double);
    double *a = (double *)c->buf, *b = (double *)(c->buf + grid);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            a[i * n + j] = (double)((i * 31 + j * 17) % 101);
    c->bytes_cpu += grid;
    phase(c);
    size_t strips = n / 2 < STENCIL_STRIPS ? n / 2 : STENCIL_STRIPS, h = n / strips;
    for (unsigned s = 0; s < STENCIL_SWEEPS; s++) {
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                size_t x = i * n + j;
                b[x] = i == 0 || j == 0 || i == n - 1 || j == n - 1
                           ? a[x]
                           : 0.2 * (a[x] + a[x - 1] + a[x + 1] + a[x - n] + a[x + n]);
            }
        c->bytes_cpu += 2 * grid;
        phase(c);
        size_t boff = (size_t)((unsigned char *)b - c->buf), row = n * sizeof(double);
        for (size_t k = 0; k < strips; k++) {
            size_t first = k * h, last = k == strips - 1 ? n - 1 : first + h - 1;
            if (dev(c, boff + first * row, row, 0, 0) || dev(c, boff + last * row, row, 0, 0))
                return -1;
        }
        if (s % 2 == 1 && dev(c, boff, grid, 0, 0)) /* every other sweep: the whole grid */
            return -1;
        phase(c);
        double *t = a;
        a = b;
        b = t;
    }
    return 0;
}

/* ---- hotset: 90% of accesses in a window that moves every phase ---- */

static int run_hotset(struct wl_ctx *c)
{
    size_t unit = HOTSET_ACCESS < c->len ? HOTSET_ACCESS : c->len;
    size_t units = c->len / unit;
    size_t blocks = c->len / c->block_size;
    size_t wblocks = blocks / HOTSET_WINDOW_DIV ? blocks / HOTSET_WINDOW_DIV : 1;
    size_t wunits = wblocks * c->block_size / unit;
    if (wunits == 0)
        wunits = 1;
    size_t per_round = wunits / 2 > 4 ? wunits / 2 : 4;
    uint64_t rng = c->seed;
    for (unsigned ph = 0; ph < HOTSET_PHASES; ph++) {
        size_t start = (size_t)ph * wunits % units;
        for (unsigned r = 0; r < HOTSET_ROUNDS; r++) {
            int device = r % 2;
            for (size_t k = 0; k < per_round; k++) {
                size_t u = rng_below(&rng, 100) < HOTSET_HOT_PERCENT
                               ? (start + rng_below(&rng, wunits)) % units
                               : rng_below(&rng, units);
                int write = rng_below(&rng, 4) == 0;
                unsigned char v = (unsigned char)(1 + ph * HOTSET_ROUNDS + r);
                if (device) {
                    if (dev(c, u * unit, unit, write, v))
                        return -1;
                } else if (write) {
                    cpu_write(c, u * unit, unit, v);
                } else {
                    cpu_read(c, u * unit, unit);
                }
            }
        }
        phase(c);
    }
    return 0;
}

/* ---- pingpong: one buffer, CPU and device in turn, data checked ---- */

static size_t pingpong_bytes(size_t ws, size_t bs, const struct trace *t)
{
    (void)t;
    size_t n = ws / 4;
    return round_up(n < bs ? bs : n, bs);
}

static int run_pingpong(struct wl_ctx *c)
{
    for (unsigned r = 0; r < PINGPONG_ROUNDS; r++) {
        unsigned char v1 = (unsigned char)(2 * r + 1), v2 = (unsigned char)(2 * r + 2);
        cpu_write(c, 0, c->len, v1);
        phase(c);
        uint32_t got;
        if (dev_sum(c, 0, c->len, 0, 0, &got))
            return -1;
        /* A kernel read what the CPU wrote: every word 0x01010101 * v1. */
        uint32_t expect = (uint32_t)(c->len / 4) * (0x01010101u * v1);
        if (c->gpu_sums && got != expect)
            return failf(c, "data check: pingpong round %u: the GPU read words summing to "
                         "%#x after the CPU wrote 0x%02x to the whole buffer (expected %#x)",
                         r, got, v1, expect);
        phase(c);
        if (dev(c, 0, c->len, 1, v2))
            return -1;
        phase(c);
        /* The CPU reads what the device wrote: every byte must be v2. */
        uint64_t want = 0x0101010101010101ull * v2, s = 0;
        const uint64_t *w = (const uint64_t *)c->buf;
        for (size_t i = 0; i < c->len / 8; i++) {
            if (w[i] != want) {
                size_t at = i * 8;
                while (c->buf[at] == v2)
                    at++;
                return failf(c, "data check: pingpong round %u: byte %zu (block %zu) reads "
                             "0x%02x after the device wrote 0x%02x to the whole buffer",
                             r, at, at / c->block_size, c->buf[at], v2);
            }
            s += w[i];
        }
        c->sink = mix(c->sink, s);
        c->bytes_cpu += c->len;
        phase(c);
    }
    return 0;
}

/* ---- trace: replay a file ---- */

static size_t trace_bytes(size_t ws, size_t bs, const struct trace *t)
{
    (void)ws;
    return round_up(t && t->extent ? t->extent : bs, bs);
}

static int run_trace(struct wl_ctx *c)
{
    const struct trace *t = c->trace;
    if (!t)
        return failf(c, "the trace workload needs a trace file (-t FILE)");
    int last_phase = 0;
    for (size_t i = 0; i < t->nops; i++) {
        const struct trace_op *op = &t->ops[i];
        last_phase = op->kind == TRACE_PHASE;
        if (last_phase) {
            phase(c);
            continue;
        }
        unsigned char v = (unsigned char)(op->line % 255 + 1);
        if (op->device) {
            if (dev(c, op->off, op->len, op->write, v)) {
                size_t n = strlen(c->err);
                snprintf(c->err + n, c->errlen - n, " (trace line %u)", op->line);
                return -1;
            }
        } else if (op->write) {
            cpu_write(c, op->off, op->len, v);
        } else {
            cpu_read(c, op->off, op->len);
        }
    }
    if (!last_phase)
        phase(c);
    return 0;
}

const struct workload exp_workloads[] = {
    {"stream", "CPU pass then device pass over the whole array, 4 times", ws_bytes,
     run_stream, 1},
    {"random", "GUPS-like random 8-byte CPU updates, a device sweep every 1/16 of the table",
     ws_bytes, run_random, 1},
    {"stencil", "2D 5-point CPU sweeps over two grids; the device reads halo rows, and the "
     "whole grid every other sweep", stencil_bytes, run_stencil, 1},
    {"hotset", "90% of 128 KiB accesses in a window of 1/8 of the buffer that moves every "
     "phase; CPU and device in turn", ws_bytes, run_hotset, 1},
    {"pingpong", "a quarter of the working set written by the CPU, read and written by the "
     "device, read back and checked by the CPU, 8 rounds", pingpong_bytes, run_pingpong, 1},
    {"trace", "replay of an access trace (-t FILE)", trace_bytes, run_trace, 0},
};
const size_t exp_nworkloads = sizeof exp_workloads / sizeof exp_workloads[0];

const struct workload *workload_find(const char *name)
{
    for (size_t i = 0; i < exp_nworkloads; i++)
        if (!strcmp(exp_workloads[i].name, name))
            return &exp_workloads[i];
    return NULL;
}

#define FNV_PRIME 0x100000001b3ull
#define CHECK_CHUNK_BLOCKS 256 /* asked about at once: a sparse buffer is mostly such runs */

/* FNV-1 steps over buf[off, end), off a multiple of 8 and end one too or
 * the buffer's end: the bytes past its last whole word are hashed singly. */
static uint64_t hash_span(uint64_t h, const unsigned char *buf, size_t off, size_t end)
{
    size_t i = off;
    for (; i + 8 <= end; i += 8) {
        uint64_t w;
        memcpy(&w, buf + i, 8);
        h = (h ^ w) * FNV_PRIME;
    }
    for (; i < end; i++)
        h = (h ^ buf[i]) * FNV_PRIME;
    return h;
}

/* hash_span over zeros without reading them: each step is h * P. */
static uint64_t hash_zeros(uint64_t h, size_t off, size_t end)
{
    uint64_t steps = (end - off) / 8 + (end - off) % 8, p = FNV_PRIME;
    for (; steps; steps >>= 1, p *= p)
        if (steps & 1)
            h *= p;
    return h;
}

uint64_t wl_checksum(const struct wl_ctx *c)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t bs = c->block_size && !(c->block_size % 8) ? c->block_size : c->len;
    size_t chunk = bs * CHECK_CHUNK_BLOCKS;
    for (size_t off = 0; off < c->len; off += chunk) {
        size_t end = c->len - off < chunk ? c->len : off + chunk;
        if (c->untouched && c->untouched(c->buf + off, end - off)) {
            h = hash_zeros(h, off, end);
            continue;
        }
        for (size_t b = off; b < end; b += bs) {
            size_t e = end - b < bs ? end : b + bs;
            h = c->untouched && c->untouched(c->buf + b, e - b) ? hash_zeros(h, b, e)
                                                               : hash_span(h, c->buf, b, e);
        }
    }
    h ^= c->sink;
    return rng_next(&h);
}
