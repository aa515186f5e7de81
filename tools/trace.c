/* Parsing and checking of access-trace files (format in trace.h). */
#include "trace.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A byte count: decimal or 0x hex, optional K, M or G (binary) suffix. */
static int parse_bytes(const char *s, uint64_t *out)
{
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!isxdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno || end == s)
        return -1;
    unsigned shift = 0;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        default: return -1;
        }
        if (end[1])
            return -1;
    }
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static void fail(char *err, size_t errlen, const char *path, unsigned line, const char *fmt,
                 ...)
{
    int n = snprintf(err, errlen, "%s:%u: ", path, line);
    if (n < 0 || (size_t)n >= errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

static int push(struct trace *t, size_t *cap, struct trace_op op)
{
    if (t->nops == *cap) {
        size_t nc = *cap ? *cap * 2 : 1024;
        struct trace_op *n = realloc(t->ops, nc * sizeof *n);
        if (!n)
            return -1;
        t->ops = n;
        *cap = nc;
    }
    t->ops[t->nops++] = op;
    return 0;
}

struct trace *trace_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open trace '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct trace *t = calloc(1, sizeof *t);
    char *line = NULL;
    size_t linecap = 0, cap = 0;
    unsigned lineno = 0;
    int bad = !t;
    if (!t)
        snprintf(err, errlen, "out of memory reading '%s'", path);
    while (!bad && getline(&line, &linecap, f) >= 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *field[6];
        int nf = 0;
        char *save = NULL;
        for (char *tok = strtok_r(line, " \t\r\n", &save); tok;
             tok = strtok_r(NULL, " \t\r\n", &save))
            if (nf < 6)
                field[nf++] = tok;
            else
                nf++;
        if (nf == 0)
            continue;
        struct trace_op op = {.line = lineno};
        if (!strcmp(field[0], "phase")) {
            op.kind = TRACE_PHASE; /* anything after "phase" is a label */
        } else {
            if (nf != 4) {
                fail(err, errlen, path, lineno, "expected '<c|d> <r|w> <offset> <length>' or "
                     "'phase', got %d field%s", nf, nf == 1 ? "" : "s");
                bad = 1;
                break;
            }
            if (strcmp(field[0], "c") && strcmp(field[0], "d")) {
                fail(err, errlen, path, lineno, "agent '%s' is unknown: use c (CPU) or d "
                     "(device)", field[0]);
                bad = 1;
                break;
            }
            if (strcmp(field[1], "r") && strcmp(field[1], "w")) {
                fail(err, errlen, path, lineno, "access '%s' is unknown: use r (read) or w "
                     "(write)", field[1]);
                bad = 1;
                break;
            }
            op.device = field[0][0] == 'd';
            op.write = field[1][0] == 'w';
            if (parse_bytes(field[2], &op.off)) {
                fail(err, errlen, path, lineno, "offset '%s' is not a byte count (decimal or "
                     "0x hex, optional K/M/G suffix)", field[2]);
                bad = 1;
                break;
            }
            if (parse_bytes(field[3], &op.len) || op.len == 0) {
                fail(err, errlen, path, lineno, "length '%s' is not a byte count above 0 "
                     "(decimal or 0x hex, optional K/M/G suffix)", field[3]);
                bad = 1;
                break;
            }
            if (op.off >= TRACE_MAX_EXTENT || op.len > TRACE_MAX_EXTENT - op.off) {
                fail(err, errlen, path, lineno, "offset + length = %s + %s reaches past the "
                     "64 GiB a trace may span", field[2], field[3]);
                bad = 1;
                break;
            }
            if (op.off + op.len > t->extent)
                t->extent = op.off + op.len;
            t->bytes += op.len;
            t->naccesses++;
        }
        if (push(t, &cap, op)) {
            snprintf(err, errlen, "out of memory reading '%s'", path);
            bad = 1;
        }
    }
    if (!bad && ferror(f)) {
        snprintf(err, errlen, "cannot read trace '%s': %s", path, strerror(errno));
        bad = 1;
    }
    if (!bad && t->naccesses == 0) {
        snprintf(err, errlen, "trace '%s' holds no accesses (lines '<c|d> <r|w> <offset> "
                 "<length>')", path);
        bad = 1;
    }
    free(line);
    fclose(f);
    if (bad) {
        trace_free(t);
        return NULL;
    }
    return t;
}

void trace_free(struct trace *t)
{
    if (!t)
        return;
    free(t->ops);
    free(t);
}
