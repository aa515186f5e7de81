/* Shared helpers of the libFuzzer targets (tests/fuzz, scripts/fuzz.sh),
 * linked into each (fuzz.c). */
#ifndef UVAS_FUZZ_H
#define UVAS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An invariant of the model: a violation is a crash libFuzzer records,
 * with the input that caused it. */
#define FZ_CHECK(cond, ...)                                                                   \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "%s:%d: invariant failed: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

/* The input as a C string of at most max-1 bytes, cut at the first NUL
 * (malloc'd). */
char *fz_string(const uint8_t *data, size_t size, size_t max);

/* A cursor over the input: takes bytes from the front, zeros when empty. */
struct fz_in {
    const uint8_t *p;
    size_t n;
};

uint64_t fz_take(struct fz_in *in, unsigned bytes);
static inline uint8_t fz_u8(struct fz_in *in) { return (uint8_t)fz_take(in, 1); }
static inline uint16_t fz_u16(struct fz_in *in) { return (uint16_t)fz_take(in, 2); }
static inline uint32_t fz_u32(struct fz_in *in) { return (uint32_t)fz_take(in, 4); }
static inline uint64_t fz_u64(struct fz_in *in) { return fz_take(in, 8); }

#endif
