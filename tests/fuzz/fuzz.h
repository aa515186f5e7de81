/* Shared helpers of the libFuzzer targets (tests/fuzz, scripts/fuzz.sh). */
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

/* The input as a C string of at most max-1 bytes, cut at the first NUL. */
static inline char *fz_string(const uint8_t *data, size_t size, size_t max)
{
    size_t n = size < max - 1 ? size : max - 1;
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

/* A cursor over the input: takes bytes from the front, zeros when empty. */
struct fz_in {
    const uint8_t *p;
    size_t n;
};

static inline uint64_t fz_take(struct fz_in *in, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v <<= 8;
        if (in->n) {
            v |= *in->p++;
            in->n--;
        }
    }
    return v;
}

static inline uint8_t fz_u8(struct fz_in *in) { return (uint8_t)fz_take(in, 1); }
static inline uint16_t fz_u16(struct fz_in *in) { return (uint16_t)fz_take(in, 2); }
static inline uint32_t fz_u32(struct fz_in *in) { return (uint32_t)fz_take(in, 4); }
static inline uint64_t fz_u64(struct fz_in *in) { return fz_take(in, 8); }

#endif
