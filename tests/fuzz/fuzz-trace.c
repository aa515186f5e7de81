/*
 * The experiment runner's trace parser, trace_load (tools/trace.c), on the
 * input as a trace file (written to a file in /dev/shm, or $TMPDIR, since
 * trace_load takes a path). Invariants: NULL comes with a message naming
 * the file; an accepted trace has at least one access, its counts and sums
 * agree with its operations, every access lies below 64 GiB, has a length
 * above 0, and its line numbers increase.
 */
#include <unistd.h>

#include "fuzz.h"
#include "trace.h"

static char path[256];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/uvas-fuzz-trace.%d", dir ? dir : "/tmp", (int)getpid());
    return 0;
}

static void cleanup(void) __attribute__((destructor));
static void cleanup(void)
{
    if (path[0])
        unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "w");
    FZ_CHECK(f, "cannot write %s", path);
    FZ_CHECK(fwrite(data, 1, size, f) == size, "short write");
    fclose(f);

    char err[512] = "";
    struct trace *t = trace_load(path, err, sizeof err);
    if (!t) {
        FZ_CHECK(err[0] && strstr(err, path), "refused without naming the file: '%s'", err);
        return 0;
    }
    FZ_CHECK(t->naccesses > 0 && t->naccesses <= t->nops, "%zu accesses in %zu ops",
             t->naccesses, t->nops);
    size_t n = 0;
    uint64_t bytes = 0, extent = 0;
    uint32_t line = 0;
    for (size_t i = 0; i < t->nops; i++) {
        const struct trace_op *op = &t->ops[i];
        FZ_CHECK(op->line > line, "op %zu at line %u after line %u", i, op->line, line);
        line = op->line;
        if (op->kind == TRACE_PHASE)
            continue;
        FZ_CHECK(op->kind == TRACE_ACCESS && op->device <= 1 && op->write <= 1, "op %zu", i);
        FZ_CHECK(op->len > 0 && op->off < TRACE_MAX_EXTENT &&
                 op->len <= TRACE_MAX_EXTENT - op->off,
                 "op %zu: %llu + %llu", i, (unsigned long long)op->off,
                 (unsigned long long)op->len);
        n++;
        bytes += op->len;
        if (op->off + op->len > extent)
            extent = op->off + op->len;
    }
    FZ_CHECK(n == t->naccesses && bytes == t->bytes && extent == t->extent,
             "totals %zu/%zu, %llu/%llu, %llu/%llu", n, t->naccesses,
             (unsigned long long)bytes, (unsigned long long)t->bytes,
             (unsigned long long)extent, (unsigned long long)t->extent);
    trace_free(t);
    return 0;
}
