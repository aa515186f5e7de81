/*
 * Access traces for the trace workload. Format (docs/experiments.md):
 *
 *     # comment (also after the fields)
 *     c r 0 4096          agent c|d, r|w, offset, length in bytes
 *     d w 0x200000 2M     numbers in decimal or 0x hex, K/M/G suffixes
 *     phase               a phase boundary: a residency sample
 */
#ifndef UVAS_EXP_TRACE_H
#define UVAS_EXP_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_EXTENT (64ull << 30) /* offsets + lengths stay below 64 GiB */

enum trace_kind { TRACE_ACCESS = 0, TRACE_PHASE = 1 };

struct trace_op {
    uint64_t off, len;
    uint32_t line;      /* line number in the file */
    uint8_t kind;       /* enum trace_kind */
    uint8_t device;     /* 1: the device accesses, 0: the CPU */
    uint8_t write;
};

struct trace {
    struct trace_op *ops;
    size_t nops;
    size_t naccesses;
    uint64_t extent;       /* highest offset + length */
    uint64_t bytes;        /* sum of the accesses' lengths */
};

/* Parse a trace file. NULL on error, with a message naming the file and the
 * line in err. */
struct trace *trace_load(const char *path, char *err, size_t errlen);
void trace_free(struct trace *t);

#endif
